/**
 * `npm run bench:service -- --concurrency 50,200` (issue 37): bursts of concurrent run starts and
 * decisions through the run service, over two tenants, against a bare `client.workflow.start` loop
 * measured in the same run. BENCHMARKS.md, "The run service under load: concurrent starts and
 * decisions", has the results and the reason for them.
 *
 * One process holds a private dev server's client and the run service on 127.0.0.1 (limits out of the
 * way: this measures latency, not admission); a worker process (service-load-worker.ts, tools not
 * held) runs `refund.graph` with the scripted refund model, so each run waits for an approval. For
 * each level N:
 * 1. idle: 5 starts and 5 decisions one at a time (the service's latency with nothing else running);
 * 2. bare (another `Client` on the same connection, the same worker and task queue): N concurrent
 *    `client.workflow.start` of a signed refund run, then N concurrent `decide` updates on them: the floor;
 * 3. starts: N concurrent `POST /v1/runs`, each with its own `Idempotency-Key`, alternating the two
 *    tenants; then 10 of them sent again with their key (each must be 200 `Idempotent-Replayed`);
 * 4. decisions: once every run waits, N concurrent approvals by each tenant's approver.
 * Counted and asserted: every start answered 201 with a distinct run, visibility holds exactly N runs
 * of the level's tenants (nothing lost, nothing duplicated), every decision answered 200, and every
 * run ends with exactly one verified decision. Timing spans (service-concurrency-probe.ts) say where
 * the service's time went. The results go to bench/results/service-concurrency-<timestamp>.json; the
 * process exits 2 when a check fails.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { projectRoot } from '../../src/devserver/config.js';
import { buildRunInput } from '../../src/client/build-run-input.js';
import { signStart } from '../../src/client/decisions/sign-start.js';
import { sendDecision, signedPayload } from '../../src/client/decisions/send-decision.js';
import type { RunView } from '../../src/contract/run-view.js';
import { QUERY_NAMES } from '../../src/contract/visibility.js';
import { benchIdentity, type BenchIdentity } from '../lib/bench-identity.js';
import { createBenchService } from '../lib/bench-service.js';
import { httpAgent, timedPost, type Timed } from '../lib/http-json.js';
import { spawnWorker } from '../lib/load-worker.js';
import { machineInfo } from '../lib/machine.js';
import { progress } from '../lib/progress.js';
import { startPrivateServer } from '../lib/server.js';
import { parseOptions as parseBenchOptions } from '../lib/options.js';
import { quantile, round } from '../lib/stats.js';
import { waitAll } from '../lib/wait-runs.js';
import { timeRequests, timeTemporalCalls, type Spans } from './service-concurrency-probe.js';
import { render } from './service-concurrency-report.js';

const TASK_QUEUE = 'svc-conc';
const REFUND_TASK = { message: 'refund ORD-1001 please', customerId: 'C1001' };
const START_BODY = { profile: 'refund.graph', task: REFUND_TASK, modelRoute: 'scripted/refund' };

const stats = (v: readonly number[]) => ({
  n: v.length,
  p50: round(quantile(v, 0.5), 1),
  p95: round(quantile(v, 0.95), 1),
  max: round(v.length ? Math.max(...v) : Number.NaN, 1),
});

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--concurrency');
  const levels = (argv[at + 1] ?? '50,200').split(',').map(Number);
  if (levels.some((n) => !Number.isInteger(n) || n < 2)) throw new Error('--concurrency needs e.g. 50,200');
  const dataDir = parseBenchOptions(argv.includes('--disk') ? ['--disk'] : []).dataDir;
  const machine = await machineInfo();
  const startedWall = Date.now();
  progress(`${machine.nproc} CPU, node ${machine.node}; levels ${levels.join(', ')}`);
  const id = await benchIdentity();
  const server = await startPrivateServer((l) => progress(`server: ${l}`), dataDir);
  const worker = spawnWorker({
    LOAD_DIR: server.dir,
    LOAD_ADDRESS: server.address,
    LOAD_NAMESPACE: server.namespace,
    LOAD_TASK_QUEUE: TASK_QUEUE,
    LOAD_STEPS: '1',
    LOAD_TOOL_DELAY_MS: '0',
    LOAD_PRINCIPALS: JSON.stringify(id.principals),
  });
  let connection: Connection | undefined;
  let app: FastifyInstance | undefined;
  try {
    await worker.printed('polling', 120_000);
    connection = await Connection.connect({ address: server.address });
    const serviceClient = new Client({ connection, namespace: server.namespace });
    const bareClient = new Client({ connection, namespace: server.namespace });
    const spans: Spans = new Map();
    timeTemporalCalls(serviceClient, spans);
    const { openEvidenceStore } = await import('../../src/activities/store/open-evidence-store.js');
    const store = await openEvidenceStore(`sqlite:${join(server.dir, 'evidence.db')}`);
    app = createBenchService(serviceClient, store, TASK_QUEUE, id);
    timeRequests(app, spans);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    progress(`run service at ${url}`);
    const results = [];
    for (const n of levels) {
      const r = await level(n, url, id, serviceClient, bareClient, spans);
      results.push(r);
      process.stdout.write(`${render([r])}\n`);
    }
    const out = { machine, levels: results, elapsedS: round((Date.now() - startedWall) / 1000, 1) };
    const dir = resolve(projectRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(
      dir,
      `service-concurrency-${new Date(startedWall).toISOString().replace(/[:.]/g, '-')}.json`,
    );
    writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
    process.stdout.write(`results: ${file}\n`);
    if (results.some((r) => !r.checks.ok)) process.exitCode = 2;
    await app.close();
    app = undefined;
    await store.close();
  } finally {
    httpAgent.destroy();
    await app?.close();
    await worker.stop();
    await connection?.close();
    await server.stop();
  }
}

/** One level: idle, bare, N concurrent starts, N concurrent decisions; checks and spans. */
async function level(
  n: number,
  url: string,
  id: BenchIdentity,
  service: Client,
  bareClient: Client,
  spans: Spans,
) {
  const tag = `c${n}-${randomUUID().slice(0, 6)}`;
  const tenants = [`${tag}-a`, `${tag}-b`];
  const customer = await Promise.all(tenants.map((t) => id.bearer(t, 'customer')));
  const approver = await Promise.all(tenants.map((t) => id.bearer(t, 'approver')));
  const start = (i: number, key: string) =>
    timedPost(`${url}/v1/runs`, customer[i % 2]!, START_BODY, { 'idempotency-key': key });
  const decide = (i: number, runId: string, actionId: string) =>
    timedPost(`${url}/v1/runs/${runId}/decisions`, approver[i % 2]!, {
      decision: 'approve',
      actionId,
      reason: 'bench',
    });

  progress(`level ${n}: idle (one at a time)`);
  const idleStarts: Timed[] = [];
  const idleRuns: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await start(i, `${tag}-idle-${i}`);
    idleStarts.push(r);
    if (r.runId) idleRuns.push(r.runId);
  }
  const idlePending = await waitAll(service, idleRuns);
  const idleDecisions: Timed[] = [];
  for (const [i, runId] of idleRuns.entries())
    idleDecisions.push(await decide(i, runId, idlePending.get(runId)!));

  progress(`level ${n}: ${n} bare client.workflow.start, then ${n} bare decide updates`);
  const bare = await bareArm(n, `${tag}-bare`, id, bareClient);
  progress(`level ${n}: ${n} concurrent starts`);
  spans.clear();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const keys = Array.from({ length: n }, (_, i) => `${tag}-${i}`);
  const starts = await Promise.all(keys.map((k, i) => start(i, k)));
  const startSpans = snapshot(spans);
  const retries = await Promise.all(keys.slice(0, 10).map((k, i) => start(i, k)));
  const runIds = starts.flatMap((s) => (s.runId ? [s.runId] : []));
  const pending = await waitAll(service, runIds);

  progress(`level ${n}: ${n} concurrent decisions`);
  spans.clear();
  const decisions = await Promise.all(runIds.map((r, i) => decide(i, r, pending.get(r)!)));
  const decideSpans = snapshot(spans);
  loop.disable();

  progress(`level ${n}: counting runs and decisions`);
  const ended = await waitAll(service, runIds, 'ended');
  const visible = await countVisible(service, tenants, n);
  const decisionsPerRun = [...ended.values()].map(Number);
  const checks = {
    allStarts201: starts.every((s) => s.status === 201),
    distinctRuns: new Set(runIds).size === n,
    retriesReplayed: retries.every((r, i) => r.status === 200 && r.runId === starts[i]!.runId),
    visibleExactlyN: visible === n,
    allDecisions200: decisions.every((d) => d.status === 200),
    allEnded: decisionsPerRun.length === n,
    oneDecisionPerRun: decisionsPerRun.every((c) => c === 1),
  };
  return {
    n,
    idle: { start: stats(idleStarts.map((s) => s.ms)), decide: stats(idleDecisions.map((s) => s.ms)) },
    bareStart: stats(bare.startMs),
    bareDecide: stats(bare.decideMs),
    start: stats(starts.map((s) => s.ms)),
    decide: stats(decisions.map((s) => s.ms)),
    ...ratios(starts, decisions, bare),
    statuses: {
      start: tally(starts),
      retry: tally(retries),
      decide: tally(decisions),
    },
    counted: {
      acknowledged: runIds.length,
      distinct: new Set(runIds).size,
      visible,
      decisionsPerRun: tallyN(decisionsPerRun),
    },
    spans: { start: startSpans, decide: decideSpans },
    loopDelayMs: {
      p50: round(loop.percentile(50) / 1e6, 1),
      p99: round(loop.percentile(99) / 1e6, 1),
      max: round(loop.max / 1e6, 1),
    },
    checks: { ...checks, ok: Object.values(checks).every(Boolean) },
  };
}

const tally = (v: readonly Timed[]) =>
  v.reduce<Record<string, number>>(
    (m, x) => ({
      ...m,
      [`${x.status}${x.code ? ` ${x.code}` : ''}`]: (m[`${x.status}${x.code ? ` ${x.code}` : ''}`] ?? 0) + 1,
    }),
    {},
  );
const tallyN = (v: readonly number[]) =>
  v.reduce<Record<string, number>>((m, x) => ({ ...m, [String(x)]: (m[String(x)] ?? 0) + 1 }), {});

/**
 * The floor, on the same worker and task queue: `n` concurrent `client.workflow.start` of a signed
 * refund run (input built and signed before the clock starts), then, once they all wait, `n`
 * concurrent `decide` updates (`sendDecision`, payloads signed beforehand) on them.
 */
async function bareArm(n: number, tenant: string, id: BenchIdentity, client: Client) {
  const input = buildRunInput({
    profile: { name: 'refund.graph', version: 'v1' },
    task: REFUND_TASK,
    modelRoute: 'scripted/refund',
    tenantId: tenant,
    userId: 'C1001',
  });
  const signer = {
    key: id.delegateKey,
    onBehalfOf: { sub: 'C1001', kind: 'customer' as const, roles: ['requester'], ten: tenant },
  };
  const runs = Array.from({ length: n }, () => {
    const workflowId = `bare-${randomUUID()}`;
    return { workflowId, input: signStart(signer, workflowId, input) };
  });
  const startMs = await Promise.all(
    runs.map(async (r) => {
      const t0 = performance.now();
      await client.workflow.start('agentRun', {
        taskQueue: TASK_QUEUE,
        workflowId: r.workflowId,
        args: [r.input],
        searchAttributes: { AgentTenant: [tenant], AgentUser: ['C1001'] },
      });
      return performance.now() - t0;
    }),
  );
  await waitAll(
    client,
    runs.map((r) => r.workflowId),
  );
  const approver = {
    sub: `dana@${tenant}`,
    kind: 'approver' as const,
    roles: ['refund_approver', 'approver'],
    ten: tenant,
  };
  const payloads = await Promise.all(
    runs.map(async (r) => {
      const handle = client.workflow.getHandle(r.workflowId);
      const view = await handle.query<RunView>(QUERY_NAMES.state);
      const p = view.pendingAction!;
      const pending = {
        actionId: p.actionId,
        ...(p.argsDigest !== undefined ? { argsDigest: p.argsDigest } : {}),
      };
      return {
        handle,
        payload: signedPayload(id.delegateKey, view, 'approve', { reason: 'bench' }, pending, {
          onBehalfOf: approver,
        }),
      };
    }),
  );
  const decideMs = await Promise.all(
    payloads.map(async ({ handle, payload }) => {
      const t0 = performance.now();
      const outcome = await sendDecision(handle, 'approve', payload);
      if (!outcome.accepted) throw new Error(`bare decision refused: ${outcome.code} ${outcome.message}`);
      return performance.now() - t0;
    }),
  );
  return { startMs, decideMs };
}

/** Service over bare, at p50 and p95, for starts and decisions. */
function ratios(
  starts: readonly Timed[],
  decisions: readonly Timed[],
  bare: { startMs: number[]; decideMs: number[] },
) {
  const r = (a: readonly Timed[], b: readonly number[], q: number) =>
    round(
      quantile(
        a.map((x) => x.ms),
        q,
      ) / quantile(b, q),
      2,
    );
  return {
    ratioStartP50: r(starts, bare.startMs, 0.5),
    ratioStartP95: r(starts, bare.startMs, 0.95),
    ratioDecideP50: r(decisions, bare.decideMs, 0.5),
    ratioDecideP95: r(decisions, bare.decideMs, 0.95),
  };
}

function snapshot(spans: Spans): Record<string, ReturnType<typeof stats> & { sumMs: number }> {
  const out: Record<string, ReturnType<typeof stats> & { sumMs: number }> = {};
  for (const [k, v] of spans) out[k] = { ...stats(v), sumMs: Math.round(v.reduce((a, b) => a + b, 0)) };
  return out;
}

/** Runs of the level's tenants in visibility, waiting (up to 30 s) for the index to reach `want`. */
async function countVisible(client: Client, tenants: readonly string[], want: number): Promise<number> {
  const q = `WorkflowType = 'agentRun' AND AgentTenant IN (${tenants.map((t) => `'${t}'`).join(', ')})`;
  const until = Date.now() + 30_000;
  for (;;) {
    const { count } = await client.workflow.count(q);
    // Visibility lags; the idle runs (5) are of these tenants too.
    if (count - 5 >= want || Date.now() > until) return count - 5;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Run by service-load.ts when it is given `--concurrency`. */
export function runConcurrencyBench(): Promise<void> {
  return main();
}
