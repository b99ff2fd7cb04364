/**
 * `npm run bench:service` (`-- --seconds 10` for a quick try): a bounded load test of the run service
 * (src/service) on loopback, against the plain harness client in the same run. BENCHMARKS.md, "The
 * run service under load", has its results and how to read them.
 *
 * One process holds a private dev server's client, a worker (`bench.steps@v1`, `--steps` steps, each
 * tool call held `--tool-delay-ms` so a run lasts a few seconds), the run service on 127.0.0.1 with a
 * configured start rate (`--rate` per second per tenant, burst `--burst`, by default two seconds of
 * the rate as docs/api.md advises), and both arms' clients:
 *
 * - service: run starts through `POST /v1/runs` at the configured rate for the first half of
 *   `--seconds` and at twice that rate for the second half; `--clients` SSE clients, each following
 *   a run of its arm through `GET /v1/runs/{id}/events` to its terminal event, then the next. A
 *   quarter of the connections are cut after 1-6 events and resumed with `Last-Event-ID`.
 * - plain: for every accepted service start, one `startAgentRun` on the same client; `--clients`
 *   followers polling the evidence store's `listEvents` at the service's poll interval.
 *
 * Every follower's sequence is checked against the store afterwards (no gap, no duplicate, nothing
 * out of order). Start latency is the caller's wall time; event delivery latency is receive time
 * minus the event's `occurredAt`, for events that occurred while the follower was connected. Then a
 * short capacity probe: `--probe` starts per arm with 8 in flight on a task queue nobody polls,
 * through a second service without limits and through the plain client (CPU per start of this
 * process and of the dev server). Everything is closed at the end; the results go to
 * bench/results/service-load-<timestamp>.json.
 *
 * `-- --concurrency 50,200` runs bursts of concurrent starts and decisions instead
 * (service-concurrency.ts).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { httpAgent, postJson } from '../lib/http-json.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { BENCH_TASK_MESSAGE, benchRoute } from '../../apps/bench/bench-script.js';
import { buildRunInput } from '../../src/client/build-run-input.js';
import type { DecisionKeyFile } from '../../src/client/decisions/decision-key.js';
import { plainStartSigner } from '../lib/plain-start-signer.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { benchIdentity } from '../lib/bench-identity.js';
import { composeAgentRun } from '../../src/workflows/temporal/agent-run-definition.js';
import { projectRoot } from '../../src/devserver/config.js';
import { TERMINAL_EVENT_TYPES } from '../../src/service/run-event-feed.js';
import { createRunService } from '../../src/service/run-service.js';
import { parseServiceConfig, type ServiceConfig } from '../../src/service/service-config.js';
import { openEvidenceStore } from '../../src/activities/store/open-evidence-store.js';
import type { EvidenceStore } from '../../src/activities/store/index.js';
import { benchBundleDefinition } from '../workflows/definition.js';
import { benchBudget } from '../lib/arms.js';
import { ownCpuMs, processCpuMs } from '../lib/cpu.js';
import { machineInfo } from '../lib/machine.js';
import { progress } from '../lib/progress.js';
import type { Arm, ClientsResult, Follow, StartSample as ClientStart } from './service-load-clients.js';
import { quantile, round } from '../lib/stats.js';
import { startPrivateServer } from '../lib/server.js';
import { parseOptions as parseBenchOptions } from '../lib/options.js';
import { runConcurrencyBench } from './service-concurrency.js';

/** Caps as high as the bench's largest run asks for. */
const LOAD_BUDGET_CAP = { maxSteps: 100_000, maxModelCalls: 100_000, maxToolCalls: 100_000 };

interface LoadOptions {
  readonly seconds: number;
  /** The configured start rate per tenant (per second). */
  readonly rate: number;
  /** The configured burst (bucket size) of that rate. */
  readonly burst: number;
  readonly clients: number;
  readonly steps: number;
  readonly toolDelayMs: number;
  /** Starts per arm in the capacity probe (0: no probe). */
  readonly probe: number;
  readonly pollMs: number;
  readonly dataDir: string;
}

const FLAGS: Record<string, { min: number; def: number }> = {
  '--seconds': { min: 4, def: 60 },
  '--rate': { min: 1, def: 5 },
  '--burst': { min: 0, def: 0 },
  '--clients': { min: 1, def: 200 },
  '--steps': { min: 1, def: 1 },
  '--tool-delay-ms': { min: 0, def: 3000 },
  '--probe': { min: 0, def: 200 },
  '--poll-ms': { min: 20, def: 250 },
};

function parseOptions(argv: readonly string[]): LoadOptions {
  const v: Record<string, number> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--disk') continue;
    const spec = FLAGS[a];
    if (!spec) throw new Error(`unknown argument ${a} (known: ${Object.keys(FLAGS).join(', ')}, --disk)`);
    const n = Number(argv[++i]);
    if (!Number.isInteger(n) || n < spec.min) throw new Error(`${a} needs a whole number >= ${spec.min}`);
    v[a] = n;
  }
  const get = (k: string) => v[k] ?? FLAGS[k]!.def;
  return {
    seconds: get('--seconds'),
    rate: get('--rate'),
    burst: get('--burst') || 2 * get('--rate'),
    clients: get('--clients'),
    steps: get('--steps'),
    toolDelayMs: get('--tool-delay-ms'),
    probe: get('--probe'),
    pollMs: get('--poll-ms'),
    dataDir: parseBenchOptions(argv.includes('--disk') ? ['--disk'] : []).dataDir,
  };
}

const TASK_QUEUE = 'svc-load';
/** When a start request (by its x-load-id) reached the service's HTTP server (epoch ms, fractional). */
const arrivals = new Map<string, number>();
const PROBE_QUEUE = 'svc-load-idle';
/** After the start phase, followers get this long to see their runs end. */
const GRACE_MS = 60_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((res) => {
    if (signal?.aborted) return res();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      res();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

type StartSample = ClientStart & {
  /** Service starts: from the call to the request reaching the service's HTTP server. */
  readonly toServerMs?: number;
};

async function main(): Promise<void> {
  // Bursts of concurrent starts and decisions (service-concurrency.ts) instead of the rate test.
  if (process.argv.includes('--concurrency')) return runConcurrencyBench();
  const o = parseOptions(process.argv.slice(2));
  const startedWall = Date.now();
  const machine = await machineInfo();
  progress(
    `${machine.nproc} CPU, node ${machine.node}; ${o.seconds} s, rate ${o.rate}/s (2x in the second half), ${o.clients} clients per arm, ${o.steps}-step runs, tool delay ${o.toolDelayMs} ms`,
  );

  // The service's delegate key, a registry that trusts it (decisions are not exercised here, but
  // the worker runs with the registry a real deployment has) and the bearer-token issuer.
  const id = await benchIdentity();
  const token = (tenant: string) =>
    id.token({ tenant, subject: `load@${tenant}`, roles: ['requester'], kind: 'customer' });

  const server = await startPrivateServer((l) => progress(`server: ${l}`), o.dataDir);
  const services: FastifyInstance[] = [];
  // Interrupted: stop what was started (the load process ends when its stdin closes), then exit.
  const onSignal = () => {
    void (async () => {
      await worker?.stop();
      await server.stop();
      process.exit(130);
    })();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let worker: Child | undefined;
  let connection: Connection | undefined;
  let store: EvidenceStore | undefined;
  try {
    progress(`server at ${server.address}; starting the worker process`);
    worker = spawnChild(WORKER_SCRIPT, {
      LOAD_DIR: server.dir,
      LOAD_ADDRESS: server.address,
      LOAD_NAMESPACE: server.namespace,
      LOAD_TASK_QUEUE: TASK_QUEUE,
      LOAD_STEPS: String(o.steps),
      LOAD_TOOL_DELAY_MS: String(o.toolDelayMs),
      LOAD_PRINCIPALS: JSON.stringify(id.principals),
    });
    await worker.printed('polling', 120_000);
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });
    store = await openEvidenceStore(`sqlite:${join(server.dir, 'evidence.db')}`);
    const world: World = { client, store, serverDir: server.dir, delegateKeyFile: id.delegateKeyFile };
    const composition = composeAgentRun(benchBundleDefinition);
    const serviceConfig = (limits: ServiceConfig['limits']) =>
      parseServiceConfig({
        identity: { jwksFile: 'unused', issuer: id.issuer, audience: id.audience },
        delegateKeyFile: 'unused',
        // The bench's own routes and budgets (bigger runs than the default cap allows).
        caps: { default: { modelRoutes: ['bench/*', 'scripted/*'], budget: LOAD_BUDGET_CAP } },
        limits,
        stream: { pollMs: o.pollMs, heartbeatMs: 15_000 },
      });
    const openLimits = {
      startsPerUser: { perSecond: 10_000, burst: 100_000 },
      activeRunsPerTenant: 1_000_000,
      activeRunsPerUser: 1_000_000,
      sseConnectionsPerTenant: 100_000,
      sseConnectionsPerUser: 100_000,
    };
    const startService = async (limits: ServiceConfig['limits'], taskQueue: string) => {
      const app = createRunService({
        client,
        store: world.store,
        composition,
        taskQueue,
        config: serviceConfig(limits),
        jwks: id.jwks,
        delegateKey: id.delegateKey,
      });
      services.push(app);
      // When each start request reached the HTTP server (headers parsed), to split the caller's time.
      app.server.on('request', (req: { headers: Record<string, unknown> }) => {
        const id = req.headers['x-load-id'];
        if (typeof id === 'string') arrivals.set(id, performance.timeOrigin + performance.now());
      });
      return app.listen({ host: '127.0.0.1', port: 0 });
    };
    const url = await startService(
      { ...openLimits, startsPerTenant: { perSecond: o.rate, burst: o.burst } },
      TASK_QUEUE,
    );
    progress(`run service at ${url}`);
    const bearer = `Bearer ${await token('acme')}`;

    const body = {
      profile: 'bench.steps',
      task: { message: BENCH_TASK_MESSAGE },
      modelRoute: benchRoute(o.steps),
      budget: benchBudget(o.steps),
    };
    const plainInput = (tenant: string) =>
      buildRunInput({
        profile: { name: 'bench.steps', version: 'v1' },
        task: body.task,
        modelRoute: body.modelRoute,
        budget: body.budget,
        tenantId: tenant,
        userId: `load@${tenant}`,
      });

    const result = await drive(o, world, url, bearer, body, plainInput('plain'), {
      address: server.address,
      namespace: server.namespace,
    });

    let probe: ProbeResult | undefined;
    if (o.probe > 0) {
      // The probe measures starts alone: wait (up to a minute) until the load's runs have ended.
      const idleBy = Date.now() + 60_000;
      for (;;) {
        const { count } = await client.workflow.count(
          `TaskQueue = '${TASK_QUEUE}' AND ExecutionStatus = 'Running'`,
        );
        if (count === 0 || Date.now() > idleBy) break;
        await sleep(1_000);
      }
      const probeUrl = await startService(
        { ...openLimits, startsPerTenant: { perSecond: 10_000, burst: 100_000 } },
        PROBE_QUEUE,
      );
      probe = await capacityProbe(o.probe, world, probeUrl, `Bearer ${await token('probe')}`, body, () =>
        plainInput('probe'),
      );
    }

    const summary = summarize(o, result, probe);
    const elapsedS = round((Date.now() - startedWall) / 1000, 1);
    process.stdout.write(`${render(o, machine, summary, elapsedS)}\n`);
    const dir = resolve(projectRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `service-load-${new Date(startedWall).toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          machine,
          options: o,
          elapsedS,
          summary,
          concurrency: result.concurrency,
          starts: result.starts.map((s) => ({
            ...s,
            at: Math.round(s.at),
            ms: round(s.ms, 1),
            ...(s.toServerMs !== undefined ? { toServerMs: round(s.toServerMs, 1) } : {}),
          })),
          probe: probe?.chunks,
          problems: result.problems.slice(0, 100),
        },
        null,
        1,
      )}\n`,
    );
    process.stdout.write(`results: ${file}\n`);
    if (!summary.checks.ok) process.exitCode = 2;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    httpAgent.destroy();
    for (const s of services) await s.close();
    await worker?.stop();
    await store?.close();
    await connection?.close();
    await server.stop();
  }
}

/** What the load runs against: the client, the evidence store the worker writes, the server's folder. */
interface World {
  readonly client: Client;
  readonly store: EvidenceStore;
  readonly serverDir: string;
  /**
   * The service's delegate key file: the plain arm signs its starts with it for the same person the
   * service signs for, so both arms pay for a signed start (docs/authorization.md, "Who a run is for").
   */
  readonly delegateKeyFile: DecisionKeyFile;
}

/** Their command lines name these files, so their CPU can be read from /proc. */
const WORKER_SCRIPT = 'service-load-worker.ts';
const CLIENTS_SCRIPT = 'service-load-clients.ts';

interface Child {
  /** Write a line to its stdin. */
  send(line: string): void;
  /** Resolves when it prints `word`. */
  printed(word: string, timeoutMs: number): Promise<void>;
  /** SIGTERM, close its stdin, SIGKILL after 20 s; resolves when it has exited. */
  stop(): Promise<void>;
}

/** `node --import tsx bench/tools/<script>` with `env` added; killed if this process exits first. */
function spawnChild(script: string, env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'bench', 'tools', script)], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const killNow = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killNow);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let seen = '';
  child.stdout.on('data', (b: Buffer) => (seen += b.toString()));
  return {
    send: (line) => void child.stdin.write(`${line}\n`),
    printed: (word, timeoutMs) =>
      new Promise<void>((res, rej) => {
        const check = () => {
          if (!seen.includes(word)) return;
          done();
          res();
        };
        const onExit = (code: number | null) => {
          done();
          rej(new Error(`${script} exited (${code}) before printing ${word}`));
        };
        const timer = setTimeout(() => {
          done();
          rej(new Error(`${script} did not print ${word} in ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          child.stdout.off('data', check);
          child.off('exit', onExit);
        };
        child.stdout.on('data', check);
        child.once('exit', onExit);
        check();
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      child.stdin.end();
      const timer = setTimeout(killNow, 20_000);
      await exited;
      clearTimeout(timer);
      process.off('exit', killNow);
    },
  };
}

interface DriveResult {
  readonly starts: StartSample[];
  readonly follows: Follow[];
  readonly latencies: Record<Arm, number[]>;
  readonly counters: ClientsResult['counters'];
  /** t: ms since the start phase began. */
  readonly concurrency: { t: number; service: number; plain: number }[];
  readonly problems: string[];
  readonly startPhaseMs: number;
  /** CPU ms during the start phase: this process (service, starts), clients, worker, dev server. */
  readonly cpu: { serviceMs: number; clientsMs: number; workerMs: number; serverMs: number; wallMs: number };
  /** The service process's event loop delay during the start phase (ms). */
  readonly loopDelay: { p50: number; p99: number; max: number };
  /** The clients process's. */
  readonly clientsLoopDelay: { p50: number; p99: number; max: number };
}

async function drive(
  o: LoadOptions,
  world: World,
  url: string,
  bearer: string,
  body: Record<string, unknown>,
  plainInput: ReturnType<typeof buildRunInput>,
  temporal: { address: string; namespace: string },
): Promise<DriveResult> {
  const out = join(world.serverDir, 'clients-result.json');
  const clients = spawnChild(CLIENTS_SCRIPT, {
    LOAD_URL: url,
    LOAD_BEARER: bearer,
    LOAD_STORE_URL: `sqlite:${join(world.serverDir, 'evidence.db')}`,
    LOAD_CLIENTS: String(o.clients),
    LOAD_POLL_MS: String(o.pollMs),
    LOAD_GRACE_MS: String(GRACE_MS),
    LOAD_OUT: out,
    LOAD_SECONDS: String(o.seconds),
    LOAD_RATE: String(o.rate),
    LOAD_BODY: JSON.stringify(body),
    LOAD_PLAIN_INPUT: JSON.stringify(plainInput),
    LOAD_DELEGATE_KEY: JSON.stringify(world.delegateKeyFile),
    LOAD_ADDRESS: temporal.address,
    LOAD_NAMESPACE: temporal.namespace,
    LOAD_TASK_QUEUE: TASK_QUEUE,
  });
  try {
    await clients.printed('ready', 60_000);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const cpuNow = () => ({
      service: ownCpuMs(),
      clients: processCpuMs(CLIENTS_SCRIPT),
      worker: processCpuMs(WORKER_SCRIPT),
      server: processCpuMs(world.serverDir),
    });
    const cpu0 = cpuNow();
    const w0 = Date.now();
    clients.send('go');
    const ticker = setInterval(
      () => progress(`${Math.round((Date.now() - w0) / 1000)} s of ${o.seconds}`),
      10_000,
    );
    try {
      await clients.printed('starts-over', o.seconds * 1000 + 120_000);
    } finally {
      clearInterval(ticker);
    }
    const cpu1 = cpuNow();
    loop.disable();
    const loopDelay = {
      p50: round(loop.percentile(50) / 1e6, 1),
      p99: round(loop.percentile(99) / 1e6, 1),
      max: round(loop.max / 1e6, 1),
    };
    progress('start phase over; followers finish their runs');
    await clients.printed('done', GRACE_MS + 60_000);
    const r = JSON.parse(readFileSync(out, 'utf8')) as ClientsResult;

    // Check every follower's sequence against the store: exactly its events, in order, up to the terminal one.
    progress(`checking ${r.follows.length} follows against the store`);
    const problems: string[] = [];
    const storedSeqs = new Map<string, number[]>();
    for (const f of r.follows) {
      let expected = storedSeqs.get(f.runId);
      if (!expected) {
        expected = await terminalPrefix(world.store, f.runId);
        storedSeqs.set(f.runId, expected);
      }
      const want = f.completed ? expected : expected.slice(0, f.seqs.length);
      if (f.seqs.length !== want.length || f.seqs.some((x, i) => x !== want[i]))
        f.problems.push(`saw ${compact(f.seqs)}, the store has ${compact(want)}`);
      for (const p of f.problems) problems.push(`${f.arm} client ${f.client} run ${f.runId}: ${p}`);
    }
    const elapsed = Date.now() - w0;
    return {
      starts: r.starts.map((x) => {
        const arrived = x.id !== undefined ? arrivals.get(x.id) : undefined;
        return arrived !== undefined && x.sentAt !== undefined ? { ...x, toServerMs: arrived - x.sentAt } : x;
      }),
      follows: r.follows,
      latencies: r.latencies,
      counters: r.counters,
      concurrency: r.concurrency.map((c) => ({ ...c, t: c.t - r.t0 })),
      problems,
      startPhaseMs: r.startPhaseMs,
      cpu: {
        serviceMs: cpu1.service - cpu0.service,
        clientsMs: cpu1.clients - cpu0.clients,
        workerMs: cpu1.worker - cpu0.worker,
        serverMs: cpu1.server - cpu0.server,
        wallMs: elapsed,
      },
      loopDelay,
      clientsLoopDelay: r.loopDelay,
    };
  } finally {
    await clients.stop();
  }
}

/** The run's stored sequences up to and including its first terminal event. */
async function terminalPrefix(store: EvidenceStore, runId: string): Promise<number[]> {
  const out: number[] = [];
  let after: number | undefined;
  for (;;) {
    const batch = await store.listEvents(
      runId,
      after !== undefined ? { afterSeq: after, limit: 500 } : { limit: 500 },
    );
    for (const e of batch) {
      out.push(e.seq);
      if (TERMINAL_EVENT_TYPES.has(e.type)) return out;
    }
    if (batch.length < 500) return out;
    after = batch[batch.length - 1]!.seq;
  }
}

function compact(seqs: readonly number[]): string {
  return seqs.length > 12
    ? `[${seqs.slice(0, 6).join(',')} ... ${seqs.slice(-6).join(',')}] (${seqs.length})`
    : `[${seqs.join(',')}]`;
}

interface ProbeChunk {
  readonly arm: Arm;
  readonly starts: number;
  readonly failed: number;
  readonly wallMs: number;
  readonly latenciesMs: number[];
  readonly benchCpuMs: number;
  readonly serverCpuMs: number;
}
interface ProbeResult {
  readonly chunks: ProbeChunk[];
}

/** `n` starts per arm, 8 in flight, on a task queue nobody polls; arms in the order A B B A. */
async function capacityProbe(
  n: number,
  world: World,
  url: string,
  bearer: string,
  body: Record<string, unknown>,
  input: () => ReturnType<typeof buildRunInput>,
): Promise<ProbeResult> {
  const chunks: ProbeChunk[] = [];
  const per = Math.max(1, Math.floor(n / 2));
  for (const arm of ['service', 'plain', 'plain', 'service'] as const) {
    progress(`probe: ${per} ${arm} starts, 8 in flight`);
    const latenciesMs: number[] = [];
    let failed = 0;
    let next = 0;
    const bench0 = ownCpuMs();
    const server0 = processCpuMs(world.serverDir);
    const w0 = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < per) {
          next += 1;
          const s0 = performance.now();
          try {
            if (arm === 'service') {
              const res = await postJson(`${url}/v1/runs`, { authorization: bearer }, body);
              if (res.status !== 201) failed += 1;
            } else {
              const plain = input();
              await startAgentRun(world.client, {
                taskQueue: PROBE_QUEUE,
                workflowId: `probe-plain-${randomUUID()}`,
                input: plain,
                signer: plainStartSigner(world.delegateKeyFile, plain),
              });
            }
            latenciesMs.push(performance.now() - s0);
          } catch {
            failed += 1;
          }
        }
      }),
    );
    chunks.push({
      arm,
      starts: per,
      failed,
      wallMs: performance.now() - w0,
      latenciesMs,
      benchCpuMs: ownCpuMs() - bench0,
      serverCpuMs: processCpuMs(world.serverDir) - server0,
    });
  }
  return { chunks };
}

type Summary = ReturnType<typeof summarize>;

function summarize(o: LoadOptions, r: DriveResult, probe: ProbeResult | undefined) {
  const q = (v: readonly number[], p: number) => round(quantile(v, p), 1);
  const ratio = (a: number, b: number) => round(a / b, 2);
  const of = (arm: Arm) => r.starts.filter((s) => s.arm === arm);
  const service = of('service');
  const plain = of('plain');
  const accepted = service.filter((s) => s.status === 201);
  const refused = service.filter((s) => s.status === 429);
  const otherStatus = service.filter((s) => s.status !== 201 && s.status !== 429);
  const plainOk = plain.filter((s) => s.status === 201);
  const phase = (p: StartSample['phase']) => {
    const att = service.filter((s) => s.phase === p);
    const secs = (p === 'at_rate' ? o.seconds / 2 : o.seconds / 2) || 1;
    return {
      attempts: att.length,
      attemptsPerS: round(att.length / secs, 2),
      accepted: att.filter((s) => s.status === 201).length,
      acceptedPerS: round(att.filter((s) => s.status === 201).length / secs, 2),
      refused429: att.filter((s) => s.status === 429).length,
    };
  };
  // The limiter judged on what the service saw: replay a token bucket of the configured rate and
  // burst over the times the start requests reached its HTTP server, and compare the refusals as
  // counts over time. A refusal below the configured rate is one the service made beyond what the
  // replayed bucket refused by then, allowing the service to judge a request up to a quarter second
  // after the server saw it (requests arriving within that window may be judged in either order:
  // which of two near-simultaneous starts gets the last token is not a rate error).
  const byArrival = service
    .filter(
      (x) => x.toServerMs !== undefined && x.sentAt !== undefined && (x.status === 201 || x.status === 429),
    )
    .map((x) => ({ t: x.sentAt! + x.toServerMs!, status: x.status }))
    .sort((a, b) => a.t - b.t);
  const JUDGE_WINDOW_MS = 250;
  let tokens = o.burst;
  let last = byArrival[0]?.t ?? 0;
  const replayRefusedAt: number[] = [];
  for (const a of byArrival) {
    tokens = Math.min(o.burst, tokens + ((a.t - last) / 1000) * o.rate);
    last = a.t;
    if (tokens >= 1) tokens -= 1;
    else replayRefusedAt.push(a.t);
  }
  const bucketWouldRefuse = replayRefusedAt.length;
  let wrong429 = 0;
  let served429 = 0;
  let replayed = 0;
  for (const a of byArrival) {
    if (a.status !== 429) continue;
    served429 += 1;
    while (replayed < replayRefusedAt.length && replayRefusedAt[replayed]! <= a.t + JUDGE_WINDOW_MS)
      replayed += 1;
    wrong429 = Math.max(wrong429, served429 - replayed);
  }
  const startMs = (v: StartSample[]) => v.map((s) => s.ms);
  const follows = (arm: Arm) => r.follows.filter((f) => f.arm === arm);
  const withProblems = (arm: Arm) =>
    new Set(
      follows(arm)
        .filter((f) => f.problems.length > 0)
        .map((f) => f.client),
    ).size;
  const sseFollows = follows('service');
  const plainFollows = follows('plain');
  const steady = r.concurrency.filter(
    (c) => c.t >= Math.min(10_000, r.startPhaseMs / 3) && c.t <= r.startPhaseMs,
  );
  const eventsPerS = (arm: Arm) =>
    round(follows(arm).reduce((n, f) => n + f.seqs.length, 0) / (r.startPhaseMs / 1000), 1);
  const probeOf = (arm: Arm) => {
    const c = probe?.chunks.filter((x) => x.arm === arm) ?? [];
    const starts = c.reduce((n, x) => n + x.starts - x.failed, 0);
    const wall = c.reduce((n, x) => n + x.wallMs, 0);
    const lat = c.flatMap((x) => x.latenciesMs);
    return {
      starts,
      failed: c.reduce((n, x) => n + x.failed, 0),
      startsPerS: round(starts / (wall / 1000), 1),
      p50: q(lat, 0.5),
      p99: q(lat, 0.99),
      benchCpuMsPerStart: round(c.reduce((n, x) => n + x.benchCpuMs, 0) / Math.max(1, starts), 2),
      serverCpuMsPerStart: round(c.reduce((n, x) => n + x.serverCpuMs, 0) / Math.max(1, starts), 2),
    };
  };
  const s = {
    starts: {
      service: {
        attempts: service.length,
        accepted: accepted.length,
        refused429: refused.length,
        otherStatus: otherStatus.length,
        otherCodes: [...new Set(otherStatus.map((x) => `${x.status} ${x.code ?? ''}`))].slice(0, 5),
        acceptedPerS: round(accepted.length / (r.startPhaseMs / 1000), 2),
        atRate: phase('at_rate'),
        aboveRate: phase('above_rate'),
        refusalCodes: [...new Set(refused.map((x) => x.code))],
        /** 429s where a bucket replayed over the arrival times at the server still held a token. */
        refusedBelowRateAtServer: wrong429,
        /** Starts the replayed bucket refuses (the arrivals at the server above the rate). */
        replayedBucketRefuses: bucketWouldRefuse,
        p50: q(startMs(accepted), 0.5),
        p99: q(startMs(accepted), 0.99),
        p50Refused: q(startMs(refused), 0.5),
        toServerP50: q(
          service.flatMap((x) => (x.toServerMs !== undefined ? [x.toServerMs] : [])),
          0.5,
        ),
        toServerP99: q(
          service.flatMap((x) => (x.toServerMs !== undefined ? [x.toServerMs] : [])),
          0.99,
        ),
      },
      plain: {
        attempts: plain.length,
        accepted: plainOk.length,
        failed: plain.length - plainOk.length,
        acceptedPerS: round(plainOk.length / (r.startPhaseMs / 1000), 2),
        p50: q(startMs(plainOk), 0.5),
        p99: q(startMs(plainOk), 0.99),
      },
    },
    events: {
      service: {
        follows: sseFollows.length,
        completed: sseFollows.filter((f) => f.completed).length,
        connections: sseFollows.reduce((n, f) => n + f.connections, 0),
        cutsResumed: sseFollows.reduce((n, f) => n + f.cuts, 0),
        earlyEnds: sseFollows.reduce((n, f) => n + f.earlyEnds, 0),
        events: sseFollows.reduce((n, f) => n + f.seqs.length, 0),
        eventsPerS: eventsPerS('service'),
        latencySamples: r.latencies.service.length,
        p50: q(r.latencies.service, 0.5),
        p99: q(r.latencies.service, 0.99),
        clientsWithGaps: withProblems('service'),
        openStreams: {
          min: steady.length ? Math.min(...steady.map((c) => c.service)) : 0,
          median: steady.length
            ? q(
                steady.map((c) => c.service),
                0.5,
              )
            : 0,
        },
        sse429: r.counters.sse429,
        httpErrors: r.counters.sseErrors,
        errorEvents: r.counters.sseErrorEvents,
      },
      plain: {
        follows: plainFollows.length,
        completed: plainFollows.filter((f) => f.completed).length,
        events: plainFollows.reduce((n, f) => n + f.seqs.length, 0),
        eventsPerS: eventsPerS('plain'),
        latencySamples: r.latencies.plain.length,
        p50: q(r.latencies.plain, 0.5),
        p99: q(r.latencies.plain, 0.99),
        clientsWithGaps: withProblems('plain'),
        following: {
          min: steady.length ? Math.min(...steady.map((c) => c.plain)) : 0,
          median: steady.length
            ? q(
                steady.map((c) => c.plain),
                0.5,
              )
            : 0,
        },
        errors: r.counters.plainErrors,
      },
    },
    probe: probe ? { service: probeOf('service'), plain: probeOf('plain') } : undefined,
    cpuDuringStartPhase: {
      coresUsed: {
        serviceProcess: round(r.cpu.serviceMs / r.startPhaseMs, 2),
        clientsProcess: round(r.cpu.clientsMs / r.startPhaseMs, 2),
        worker: round(r.cpu.workerMs / r.startPhaseMs, 2),
        devServer: round(r.cpu.serverMs / r.startPhaseMs, 2),
      },
    },
    loopDelayMs: { service: r.loopDelay, clients: r.clientsLoopDelay },
    ratios: {} as Record<string, number>,
    checks: {} as { ok: boolean; [k: string]: boolean },
  };
  s.ratios = {
    startsPerS: ratio(s.starts.service.acceptedPerS, s.starts.plain.acceptedPerS),
    startP50: ratio(s.starts.service.p50, s.starts.plain.p50),
    startP99: ratio(s.starts.service.p99, s.starts.plain.p99),
    eventsPerS: ratio(s.events.service.eventsPerS, s.events.plain.eventsPerS),
    deliveryP50: ratio(s.events.service.p50, s.events.plain.p50),
    deliveryP99: ratio(s.events.service.p99, s.events.plain.p99),
    ...(s.probe
      ? {
          probeStartsPerS: ratio(s.probe.service.startsPerS, s.probe.plain.startsPerS),
          probeStartP50: ratio(s.probe.service.p50, s.probe.plain.p50),
          probeStartP99: ratio(s.probe.service.p99, s.probe.plain.p99),
          probeBenchCpuPerStart: ratio(s.probe.service.benchCpuMsPerStart, s.probe.plain.benchCpuMsPerStart),
          probeServerCpuPerStart: ratio(
            s.probe.service.serverCpuMsPerStart,
            s.probe.plain.serverCpuMsPerStart,
          ),
        }
      : {}),
  };
  const checks = {
    noGapsService: s.events.service.clientsWithGaps === 0,
    noGapsPlain: s.events.plain.clientsWithGaps === 0,
    no429BelowRateAtServer: s.starts.service.refusedBelowRateAtServer === 0,
    only429sAreStartRate: refused.every((x) => x.code === 'rate.starts_tenant'),
    some429AboveRate: s.starts.service.aboveRate.refused429 > 0,
    noOtherStartErrors: otherStatus.length === 0 && s.starts.plain.failed === 0,
    allFollowsCompleted:
      s.events.service.completed === s.events.service.follows &&
      s.events.plain.completed === s.events.plain.follows,
    noSse429: r.counters.sse429 === 0,
  };
  s.checks = { ...checks, ok: Object.values(checks).every(Boolean) };
  return s;
}

function render(
  o: LoadOptions,
  machine: Awaited<ReturnType<typeof machineInfo>>,
  s: Summary,
  elapsedS: number,
): string {
  const row = (cells: (string | number)[], widths: number[]) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');
  const w = [34, 10, 10, 7];
  const x = (v: number) => `${v}x`;
  const lines = [
    `run service under load: ${o.seconds} s, configured start rate ${o.rate}/s per tenant (burst ${o.burst}), ${o.clients} SSE clients and ${o.clients} plain followers`,
    `${machine.nproc} CPU, node ${machine.node}, Temporal SDK ${machine.temporalSdk}; bench.steps@v1 ${o.steps} steps, tool held ${o.toolDelayMs} ms; ${elapsedS} s total`,
    '',
    row(['', 'service', 'plain', 'ratio'], w),
    row(['-'.repeat(34), '-'.repeat(10), '-'.repeat(10), '-'.repeat(7)], w),
    row(
      [
        'starts accepted / s',
        s.starts.service.acceptedPerS,
        s.starts.plain.acceptedPerS,
        x(s.ratios.startsPerS!),
      ],
      w,
    ),
    row(['start p50 ms', s.starts.service.p50, s.starts.plain.p50, x(s.ratios.startP50!)], w),
    row(['start p99 ms', s.starts.service.p99, s.starts.plain.p99, x(s.ratios.startP99!)], w),
    row(
      [
        'events delivered / s',
        s.events.service.eventsPerS,
        s.events.plain.eventsPerS,
        x(s.ratios.eventsPerS!),
      ],
      w,
    ),
    row(['event delivery p50 ms', s.events.service.p50, s.events.plain.p50, x(s.ratios.deliveryP50!)], w),
    row(['event delivery p99 ms', s.events.service.p99, s.events.plain.p99, x(s.ratios.deliveryP99!)], w),
    row(
      [
        'followers with a gap or duplicate',
        s.events.service.clientsWithGaps,
        s.events.plain.clientsWithGaps,
        '',
      ],
      w,
    ),
    row(
      [
        'open streams / followers (min, med)',
        `${s.events.service.openStreams.min}, ${s.events.service.openStreams.median}`,
        `${s.events.plain.following.min}, ${s.events.plain.following.median}`,
        '',
      ],
      w,
    ),
    row(
      [
        'runs followed (completed)',
        `${s.events.service.follows} (${s.events.service.completed})`,
        `${s.events.plain.follows} (${s.events.plain.completed})`,
        '',
      ],
      w,
    ),
    ...(s.probe
      ? [
          row(
            [
              `probe: starts / s (8 in flight)`,
              s.probe.service.startsPerS,
              s.probe.plain.startsPerS,
              x(s.ratios.probeStartsPerS!),
            ],
            w,
          ),
          row(['probe: start p50 ms', s.probe.service.p50, s.probe.plain.p50, x(s.ratios.probeStartP50!)], w),
          row(['probe: start p99 ms', s.probe.service.p99, s.probe.plain.p99, x(s.ratios.probeStartP99!)], w),
          row(
            [
              'probe: CPU ms / start, this process',
              s.probe.service.benchCpuMsPerStart,
              s.probe.plain.benchCpuMsPerStart,
              x(s.ratios.probeBenchCpuPerStart!),
            ],
            w,
          ),
          row(
            [
              'probe: CPU ms / start, dev server',
              s.probe.service.serverCpuMsPerStart,
              s.probe.plain.serverCpuMsPerStart,
              x(s.ratios.probeServerCpuPerStart!),
            ],
            w,
          ),
        ]
      : []),
    '',
    `starts at the rate (${s.starts.service.atRate.attemptsPerS}/s offered): ${s.starts.service.atRate.accepted} accepted, ${s.starts.service.atRate.refused429} refused (429)`,
    `starts above the rate (${s.starts.service.aboveRate.attemptsPerS}/s offered): ${s.starts.service.aboveRate.accepted} accepted (${s.starts.service.aboveRate.acceptedPerS}/s), ${s.starts.service.aboveRate.refused429} refused (429, ${s.starts.service.refusalCodes.join(', ') || 'none'}; p50 ${s.starts.service.p50Refused} ms); a bucket replayed over the arrivals at the server refuses ${s.starts.service.replayedBucketRefuses}, 429s beyond its refusals (within 250 ms): ${s.starts.service.refusedBelowRateAtServer}`,
    `service start requests: call -> reaching the HTTP server p50 ${s.starts.service.toServerP50} ms, p99 ${s.starts.service.toServerP99} ms`,
    `SSE: ${s.events.service.connections} connections, ${s.events.service.cutsResumed} cut and resumed with Last-Event-ID, ${s.events.service.earlyEnds} ended early, ${s.events.service.sse429} refused (429), ${s.events.service.httpErrors} errors, ${s.events.service.errorEvents} error events; latency samples ${s.events.service.latencySamples} / ${s.events.plain.latencySamples}`,
    `CPU during the start phase (cores): service process ${s.cpuDuringStartPhase.coresUsed.serviceProcess}, load process (both arms' starts, SSE clients, plain followers) ${s.cpuDuringStartPhase.coresUsed.clientsProcess}, worker ${s.cpuDuringStartPhase.coresUsed.worker}, dev server ${s.cpuDuringStartPhase.coresUsed.devServer}`,
    `event loop delay (p50 / p99 / max ms): service process ${s.loopDelayMs.service.p50} / ${s.loopDelayMs.service.p99} / ${s.loopDelayMs.service.max}, clients process ${s.loopDelayMs.clients.p50} / ${s.loopDelayMs.clients.p99} / ${s.loopDelayMs.clients.max}`,
    `checks: ${Object.entries(s.checks)
      .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
      .join(', ')}`,
  ];
  return lines.join('\n');
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
