/**
 * `npm run bench:waiting -- --runs 250,500,1000 [--workers 2 --store postgres]` (issue 40, "many runs
 * waiting at once"): N refund runs wait for an approval at the same time; how much worker memory a
 * waiting run costs, what the sticky cache does (runs evicted and replayed on resume), and how long
 * approving all N through the run service takes until all N succeeded with exactly one refund each.
 * BENCHMARKS.md, "Many runs waiting at once", has the method and the results.
 *
 * Each level N runs on a fresh private dev server (bench/lib/server.ts: SQLite, on tmpfs unless
 * `--disk`; the Temporal server's own persistence is never PostgreSQL here) with fresh worker
 * processes (service-load-worker.ts, `--expose-gc`, the SDK's Prometheus metrics on loopback). The
 * evidence store is the server folder's SQLite file, or with `--store postgres` a fresh schema of a
 * throwaway PostgreSQL cluster (test/support/postgres.ts) shared by the workers; the refund app's
 * business store is one SQLite file the workers share (the app has no PostgreSQL business store).
 * This process holds the run service (bench/lib/bench-service.ts) and its HTTP callers. Phases:
 * 1. baseline: every worker polling, no run yet: memory after a forced GC, metrics;
 * 2. N orders are added to the business store (one per run: a second refund of one order would be
 *    refused as over its amount), N `POST /v1/runs` (`--concurrency` at a time, and at most
 *    `--max-starting` started runs not yet waiting) of `refund.graph` for an order of 129.00 CNY
 *    (eligible; it waits once, for the approval of its refund); a run that ends before its approval
 *    stops the bench (e.g. `start.token_expired` after a burst the workers could not take); then
 *    visibility (not the runs' queries, which would replay evicted runs) until all N wait;
 * 3. memory and metrics with all N waiting;
 * 4. read: N `GET /v1/runs/{id}` by the approver for the pending action (each a `state` query);
 * 5. approve: N `POST /v1/runs/{id}/decisions`; time from the first request to the last run's close
 *    time; memory and metrics after.
 * Checked (exit 2 otherwise): N starts 201 with distinct runs, all N waiting, N reads 200, N
 * approvals 200, all N runs completed with status `succeeded`, and the business store holds exactly
 * one refund row for each run's order and no other. Raw results: bench/results/waiting-runs-<ts>.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { openEvidenceStore } from '../../src/activities/store/open-evidence-store.js';
import { projectRoot } from '../../src/devserver/config.js';
import { startTestPostgres, type TestPostgres } from '../../test/support/postgres.js';
import { benchIdentity, type BenchIdentity } from '../lib/bench-identity.js';
import { createBenchService } from '../lib/bench-service.js';
import { httpAgent, timedPost, type Timed } from '../lib/http-json.js';
import { spawnWorker, type WorkerChild } from '../lib/load-worker.js';
import { machineInfo } from '../lib/machine.js';
import { everyTenth, inPool } from '../lib/pool.js';
import { progress } from '../lib/progress.js';
import { refundsPerOrder, seedOrders } from '../lib/refund-orders.js';
import { startPrivateServer, type PrivateServer } from '../lib/server.js';
import { quantile, round } from '../lib/stats.js';
import { countUntil, endedEarly, lastCloseMs, pacer } from '../lib/visibility-waits.js';
import { cacheDelta, scrapeCacheMetrics, type CacheMetrics } from '../lib/worker-metrics.js';
import { parseWaitingOptions, WAITING_USAGE, type WaitingOptions } from './waiting-runs-options.js';
import { render, type LevelResult, type Phase } from './waiting-runs-report.js';

const TASK_QUEUE = 'waiting-runs';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => res(port));
    });
  });
}

const stats = (v: readonly number[]) => ({
  n: v.length,
  p50: round(quantile(v, 0.5), 1),
  p95: round(quantile(v, 0.95), 1),
  max: round(v.length ? Math.max(...v) : Number.NaN, 1),
});
const tally = (v: readonly Timed[]) => {
  const m: Record<string, number> = {};
  for (const x of v) {
    const k = `${x.status}${x.code ? ` ${x.code}` : ''}`;
    m[k] = (m[k] ?? 0) + 1;
  }
  return m;
};
const phase = (ms: number, v: readonly Timed[]): Phase => ({
  ms: Math.round(ms),
  latency: stats(v.map((x) => x.ms)),
  statuses: tally(v),
});

interface World {
  readonly server: PrivateServer;
  readonly workers: readonly WorkerChild[];
  readonly ports: readonly number[];
  readonly storeUrl: string;
}

const metrics = (w: World) => Promise.all(w.ports.map((p) => scrapeCacheMetrics(p)));
const memory = (w: World) => Promise.all(w.workers.map((c) => c.memory()));
const deltas = (a: readonly CacheMetrics[], b: readonly CacheMetrics[]) =>
  b.map((x, i) => cacheDelta(a[i]!, x));

async function level(o: WaitingOptions, n: number, id: BenchIdentity, world: World): Promise<LevelResult> {
  const load0 = loadavg()[0]!;
  const tag = randomUUID().slice(0, 6).toUpperCase();
  const tenant = `waiting-${n}-${tag.toLowerCase()}`;
  const prefix = `ORD-W${tag}-`;
  const orders = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const refundDb = join(world.server.dir, 'refund.db');
  await sleep(1000);
  const baseline = await memory(world);
  const m0 = await metrics(world);
  seedOrders(refundDb, orders);
  const connection = await Connection.connect({ address: world.server.address });
  const client = new Client({ connection, namespace: world.server.namespace });
  const store = await openEvidenceStore(world.storeUrl);
  const app = createBenchService(client, store, TASK_QUEUE, id);
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const customer = await id.bearer(tenant, 'customer');
    const approver = await id.bearer(tenant, 'approver');
    const inTenant = `WorkflowType = 'agentRun' AND AgentTenant = '${tenant}'`;

    progress(
      `N=${n}: ${n} starts through the service, ${o.concurrency} at a time, at most ${o.maxStarting} not yet waiting`,
    );
    const waitingQuery = `${inTenant} AND AgentStatus IN ('awaiting_human', 'awaiting_confirmation')`;
    const paced = pacer(client, waitingQuery, inTenant, o.maxStarting);
    const t0 = Date.now();
    const starts = await inPool(
      n,
      o.concurrency,
      async (i) =>
        (await paced(i)) &&
        timedPost(
          `${url}/v1/runs`,
          customer,
          {
            profile: 'refund.graph',
            task: { message: `refund ${orders[i]} please`, customerId: 'C1001' },
            modelRoute: 'scripted/refund',
          },
          { 'idempotency-key': `${tenant}-${i}` },
        ),
      everyTenth(n, (d) => progress(`  ${d}/${n} started`)),
    );
    const startMs = Date.now() - t0;
    const runIds = starts.map((s) => s.runId ?? '');
    await countUntil(client, waitingQuery, n, 'waiting', () => endedEarly(client, inTenant));
    const allWaitingMs = Date.now() - t0;
    await sleep(2000);
    const waiting = await memory(world);
    const m1 = await metrics(world);
    progress(
      `N=${n}: all waiting after ${(allWaitingMs / 1000).toFixed(1)} s; reading each run's pending action`,
    );

    const r0 = Date.now();
    const reads = await inPool(
      n,
      o.concurrency,
      (i) => timedPost(`${url}/v1/runs/${runIds[i]}`, approver, undefined),
      everyTenth(n, (d) => progress(`  ${d}/${n} read`)),
    );
    const readMs = Date.now() - r0;
    const m2 = await metrics(world);
    const actionOf = (t: Timed) =>
      (t.body as { pendingAction?: { actionId?: string } } | undefined)?.pendingAction?.actionId ?? '';

    progress(`N=${n}: ${n} approvals through the service, ${o.concurrency} at a time`);
    const a0 = Date.now();
    const approvals = await inPool(
      n,
      o.concurrency,
      (i) =>
        timedPost(`${url}/v1/runs/${runIds[i]}/decisions`, approver, {
          decision: 'approve',
          actionId: actionOf(reads[i]!),
          reason: 'bench',
        }),
      everyTenth(n, (d) => progress(`  ${d}/${n} approved`)),
    );
    const answeredMs = Date.now() - a0;
    const refused = approvals.find((a) => a.status !== 200);
    progress(
      `N=${n}: approvals answered ${JSON.stringify(tally(approvals))}${refused ? `, e.g. ${JSON.stringify(refused.body)}` : ''}`,
    );
    await countUntil(client, `${inTenant} AND ExecutionStatus != 'Running'`, n, 'ended');
    const approveMs = (await lastCloseMs(client, inTenant)) - a0;
    const m3 = await metrics(world);
    await sleep(2000);
    const done = await memory(world);

    progress(`N=${n}: checking runs and refund rows`);
    const succeeded = (
      await client.workflow.count(
        `${inTenant} AND ExecutionStatus = 'Completed' AND AgentStatus = 'succeeded'`,
      )
    ).count;
    const refunds = refundsPerOrder(refundDb, prefix);
    const checks = {
      allStarts201: starts.every((s) => s.status === 201),
      distinctRuns: new Set(runIds.filter(Boolean)).size === n,
      allReads200: reads.every((r) => r.status === 200 && actionOf(r) !== ''),
      allApprovals200: approvals.every((a) => a.status === 200),
      allSucceeded: succeeded === n,
      oneRefundPerRun: orders.every((order) => refunds.get(order) === 1) && refunds.size === n,
    };
    return {
      n,
      workers: o.workers,
      store: o.store,
      maxCachedWorkflows: o.maxCached,
      concurrency: o.concurrency,
      maxStarting: o.maxStarting,
      start: phase(startMs, starts),
      allWaitingMs,
      read: phase(readMs, reads),
      approve: { ...phase(approveMs, approvals), answeredMs },
      memory: { baseline, waiting, done },
      cache: { toWaiting: deltas(m0, m1), read: deltas(m1, m2), approve: deltas(m2, m3) },
      load: { before: round(load0, 2), after: round(loadavg()[0]!, 2) },
      checks: { ...checks, ok: Object.values(checks).every(Boolean) },
    };
  } finally {
    await app.close();
    await store.close();
    await connection.close();
  }
}

/** A fresh dev server and worker processes for one level. */
async function startWorld(
  o: WaitingOptions,
  id: BenchIdentity,
  pg: TestPostgres | undefined,
): Promise<World> {
  const server = await startPrivateServer((l) => progress(`  server: ${l}`), o.dataDir);
  const storeUrl = pg ? pg.freshUrl() : `sqlite:${join(server.dir, 'evidence.db')}`;
  // Create the store's schema now, so the worker processes do not race to migrate it.
  await (await openEvidenceStore(storeUrl)).close();
  const ports: number[] = [];
  const workers: WorkerChild[] = [];
  try {
    for (let k = 0; k < o.workers; k++) {
      ports.push(await freePort());
      workers.push(
        spawnWorker({
          LOAD_DIR: server.dir,
          LOAD_STORE_URL: storeUrl,
          LOAD_ADDRESS: server.address,
          LOAD_NAMESPACE: server.namespace,
          LOAD_TASK_QUEUE: TASK_QUEUE,
          LOAD_STEPS: '1',
          LOAD_TOOL_DELAY_MS: '0',
          LOAD_PRINCIPALS: JSON.stringify(id.principals),
          LOAD_METRICS_PORT: String(ports[k]),
          LOAD_MAX_CACHED: String(o.maxCached),
        }),
      );
    }
    await Promise.all(workers.map((w) => w.printed('polling', 300_000)));
  } catch (err) {
    for (const w of workers) await w.stop();
    await server.stop();
    throw err;
  }
  return { server, workers, ports, storeUrl };
}

async function main(): Promise<void> {
  const parsed = parseWaitingOptions(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(`${WAITING_USAGE}\n`);
    return;
  }
  const o = parsed;
  const machine = await machineInfo();
  const startedWall = Date.now();
  progress(
    `${machine.nproc} CPU, node ${machine.node}; levels ${o.runs.join(', ')} on ${o.workers} worker(s), ${o.store} evidence store`,
  );
  const id = await benchIdentity();
  const pg =
    o.store === 'postgres'
      ? await startTestPostgres({ parentDir: o.dataDir, ignoreExternal: true })
      : undefined;
  const levels: LevelResult[] = [];
  let failure: string | undefined;
  try {
    for (const n of o.runs) {
      progress(`N=${n}: a fresh dev server and ${o.workers} worker process(es)`);
      const world = await startWorld(o, id, pg);
      try {
        const r = await level(o, n, id, world);
        levels.push(r);
        process.stdout.write(`${render([r])}\n`);
      } catch (err) {
        failure = `N=${n}: ${err instanceof Error ? err.message : String(err)}`;
        progress(failure);
        break;
      } finally {
        for (const w of world.workers) await w.stop();
        await world.server.stop();
      }
    }
  } finally {
    httpAgent.destroy();
    await pg?.stop();
  }
  if (levels.length > 1) process.stdout.write(`\n${render(levels)}\n`);
  const dir = resolve(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `waiting-runs-${new Date(startedWall).toISOString().replace(/[:.]/g, '-')}.json`);
  const elapsedS = round((Date.now() - startedWall) / 1000, 1);
  writeFileSync(file, `${JSON.stringify({ machine, options: o, elapsedS, failure, levels }, null, 1)}\n`);
  process.stdout.write(`results: ${file}\n`);
  if (failure !== undefined || levels.some((l) => !l.checks.ok)) process.exitCode = 2;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
