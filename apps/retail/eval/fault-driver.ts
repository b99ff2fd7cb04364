import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { startAgentRun, type DecisionKey, type PrincipalRegistry } from '../../../src/index.js';
import { createRetailComposition } from '../composition.js';
import { openRetailDbFile } from '../db/retail-db.js';
import { retailDbDigest } from '../db/retail-export.js';
import type { RetailDbTemplate } from '../db/retail-template.js';
import type { FaultWorkerConfig } from './fault-worker.js';
import { GoldModelProvider } from './gold-model.js';
import { checkScenario, type ScenarioObservation } from './scenario-checks.js';
import {
  driveRun,
  errorObservation,
  goldRoute,
  observeScenario,
  RETAIL_POLICY,
  RETAIL_PROFILE,
  type ScenarioRun,
} from './scenario-driver.js';
import type { RetailScenario } from './variants.js';

const FAULT_WORKER = fileURLToPath(new URL('./fault-worker.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** A lost write is declared lost after this long without a heartbeat. */
const WRITE_HEARTBEAT_SECONDS = 2;

/** What the fault scenarios of one evaluation share. */
export interface FaultContext {
  readonly client: Client;
  /** The Temporal frontend the worker processes connect to (plain, no TLS). */
  readonly address: string;
  readonly namespace: string;
  /** Each scenario gets `<dir>/<scenario>/` for its database, evidence store, config and marker. */
  readonly dir: string;
  /** The workflow bundle file the worker processes load. */
  readonly bundlePath: string;
  readonly registry: PrincipalRegistry;
  readonly customers: ReadonlyMap<string, DecisionKey>;
  readonly approver: DecisionKey;
  readonly template: RetailDbTemplate;
  readonly runTag: string;
  readonly initialDigest: string;
  readonly expectedDigest: (s: RetailScenario) => Promise<string>;
  readonly timeoutMs?: number;
}

/** A worker process; `exited` settles when it is gone. */
interface WorkerChild {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

/**
 * Spawn the fault worker on `configPath` and wait until it prints `polling`.
 *
 * @throws Error when it exits or does not poll within 60 s (it is killed then).
 */
async function spawnWorker(configPath: string): Promise<WorkerChild> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HARNESS_')) env[k] = v;
  const child = spawn(process.execPath, ['--import', 'tsx', FAULT_WORKER, configPath], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let seen = '';
  const ready = await new Promise<boolean>((resolve) => {
    const onData = (b: Buffer): void => {
      seen = (seen + b.toString()).slice(-20_000);
      if (seen.includes('polling')) resolve(true);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => resolve(false));
    setTimeout(() => resolve(false), 60_000).unref();
  });
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`the fault worker did not start polling: ${seen.slice(-2000)}`);
  }
  return { child, exited };
}

/**
 * Run one `fault` scenario: the task's gold run served by a worker process that SIGKILLs itself right
 * after the first write's effect committed (its outcome lost, its effect applied); a second worker
 * process then serves the run to its end. Passes like a gold scenario (the database equals the gold
 * one: the write applied once) and only when the kill happened. Never throws for a run that misbehaves.
 */
export async function runFaultScenario(s: RetailScenario, ctx: FaultContext): Promise<ScenarioRun> {
  const name = s.id.replace(/[^A-Za-z0-9_-]/g, '-');
  const dir = join(ctx.dir, name);
  mkdirSync(dir, { recursive: true });
  const workflowId = `reval-${ctx.runTag}-${name}`;
  const dbPath = join(dir, 'retail.db');
  ctx.template.writeTo(dbPath).close();
  const principalsPath = join(dir, 'principals.json');
  writeFileSync(principalsPath, JSON.stringify(ctx.registry));
  const config: FaultWorkerConfig = {
    address: ctx.address,
    namespace: ctx.namespace,
    taskQueue: `reval-${ctx.runTag}-${name}`,
    storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
    bundlePath: ctx.bundlePath,
    principalsPath,
    killMarker: join(dir, 'killed'),
    workflowId,
    dbPath,
    route: goldRoute(s),
    script: s.script,
  };
  const configPath = join(dir, 'worker.json');
  writeFileSync(configPath, JSON.stringify(config));
  // The same composition in this process: the start's digests and the evidence store's reads.
  const composition = await createRetailComposition({
    storeUrl: config.storeUrl,
    models: { [config.route]: new GoldModelProvider(s.script) },
    principals: ctx.registry,
    env: {},
  });
  const expectedDigest = await ctx.expectedDigest(s);
  const key = s.userId === undefined ? undefined : ctx.customers.get(s.userId);
  const started = Date.now();
  const workers: WorkerChild[] = [];
  let stopping = false;
  let second: Promise<void> = Promise.resolve();
  let handle: WorkflowHandle | undefined;
  let observation: ScenarioObservation;
  const finalDigest = (): string => {
    const db = openRetailDbFile(dbPath);
    try {
      return retailDbDigest(db);
    } finally {
      db.close();
    }
  };
  try {
    const first = await spawnWorker(configPath);
    workers.push(first);
    // When the first worker dies (the drill), a second one serves the run on.
    second = first.exited
      .then(async () => {
        if (!stopping) workers.push(await spawnWorker(configPath));
      })
      .catch(() => undefined);
    handle = await startAgentRun(ctx.client, {
      taskQueue: config.taskQueue,
      workflowId,
      input: {
        schemaVersion: 1,
        profile: RETAIL_PROFILE,
        policy: RETAIL_POLICY,
        toolRegistryDigest: composition.registry.snapshot().digest,
        modelRoute: config.route,
        configDigest: composition.configDigest,
        task: { message: s.message, taskId: s.taskId },
        ...(s.userId !== undefined ? { userId: s.userId } : {}),
        activityTimeouts: { writeHeartbeatSeconds: WRITE_HEARTBEAT_SECONDS },
      },
      ...(key ? { signer: { key } } : {}),
    });
    const { view, confirmations } = await driveRun(
      handle,
      s,
      { customer: key, approver: ctx.approver },
      started + (ctx.timeoutMs ?? 120_000),
    );
    observation = await observeScenario(composition.store, view, {
      workflowId,
      confirmations,
      started,
      digests: { initialDigest: ctx.initialDigest, expectedDigest, finalDigest: finalDigest() },
    });
  } catch (err) {
    observation = errorObservation(workflowId, err instanceof Error ? err.message : String(err), started, {
      initialDigest: ctx.initialDigest,
      expectedDigest,
      finalDigest: finalDigest(),
    });
  } finally {
    if (handle) {
      const d = await handle.describe().catch(() => undefined);
      if (d?.status.name === 'RUNNING')
        await handle.terminate('evaluation scenario finished').catch(() => undefined);
    }
    stopping = true;
    workers[0]?.child.kill('SIGKILL');
    await second;
    for (const w of workers) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    await composition.close();
  }
  const checks = checkScenario(s, observation);
  if (existsSync(config.killMarker)) return { scenario: s, observation, checks };
  const failures = [...checks.failures, 'the worker was not killed during a write'];
  return { scenario: s, observation, checks: { ...checks, passed: false, failures } };
}
