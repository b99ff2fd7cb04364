import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openRefundStore, type RefundStore } from '../../apps/refund/business/refund-store.js';
import { projectRoot } from '../../src/devserver/config.js';
import { openEvidenceStore } from '../../src/activities/store/open-evidence-store.js';
import type { EvidenceStore } from '../../src/contract/evidence-store.js';
import type { StoredEvent } from '../../src/contract/store-records.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { historyFaults, type HistoryFaults } from './history-faults.js';
import { seedSoakOrders } from './soak-orders.js';
import { buildSoakReport, soakReportMarkdown, type RunEvidence, type SoakRefundRow } from './soak-report.js';
import { startSoakRun, watchSoakRun, type SoakRun } from './soak-run.js';
import { WorkerFleet } from './worker-fleet.js';
import { refusedEventWrites } from './worker-logs.js';

/**
 * The write soak of docs/durability.md ("Soak: 100 refunds with worker kills and database outages").
 * Not part of `npm test`: run it with `npm run soak` (vitest project `soak`). Sizes can be lowered
 * for a quick try: HARNESS_SOAK_RUNS, HARNESS_SOAK_IN_FLIGHT.
 */
function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got ${raw}`);
  return n;
}

const RUNS = intEnv('HARNESS_SOAK_RUNS', 100);
const IN_FLIGHT = intEnv('HARNESS_SOAK_IN_FLIGHT', 12);
/** Every 10th order was paid too recently for R001: the run refuses it without asking anyone. */
const INELIGIBLE_EVERY = 10;
/** Worker processes on the task queue; each killed one is started again at once. */
const WORKER_SLOTS = 3;
/**
 * Every 2-5 s a random live worker process is SIGKILLed, as long as another one stays up (a process
 * needs many seconds to start on a small machine: killing the last one would only measure an empty
 * task queue). Each killed process is started again at once.
 */
const KILL_EVERY_MS = [2_000, 5_000] as const;
/** PostgreSQL is stopped when this share of the runs has ended, and started again OUTAGE_MS later. */
const OUTAGES_AT = [0.3, 0.65] as const;
const OUTAGE_MS = 5_000;
/** How long one run may take while faults go on, and how long open runs get once they stop. */
const RUN_TIMEOUT_MS = 15 * 60_000;
const SETTLE_TIMEOUT_MS = 5 * 60_000;
/** Lost activities are noticed within seconds (writes: 2 s, as the fault tests). */
const ACTIVITY_TIMEOUTS = { writeHeartbeatSeconds: 2, readHeartbeatSeconds: 5, modelHeartbeatSeconds: 10 };
/**
 * Each slot's refund store drill: createRefund takes 1.5 s (heartbeating), so kills land inside
 * writes: before the row is written (slots 0 and 2) or after it is committed (slot 1).
 */
const SLOT_DRILLS: readonly Record<string, string>[] = [
  { HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=1500,readOrder=300' },
  {
    HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=1500',
    HARNESS_REFUND_STORE_LATENCY_PHASE: 'after_commit',
  },
  { HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=1500' },
];

/** Where the report (write-soak.json, write-soak.md) and the worker processes' logs go. */
const ARTIFACTS = join(projectRoot, 'test-artifacts', 'soak');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = ([lo, hi]: readonly [number, number]) => lo + Math.floor(Math.random() * (hi - lo));

/** Run `work` over `items` with at most `limit` at a time, results in item order. */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

async function allEvents(store: EvidenceStore, runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const page = await store.listEvents(runId, { afterSeq: out.at(-1)?.seq ?? 0, limit: 500 });
    out.push(...page);
    if (page.length < 500) return out;
  }
}

async function evidenceOf(store: EvidenceStore, runId: string): Promise<RunEvidence> {
  const events = await allEvents(store, runId);
  const invocations = await store.listInvocations(runId);
  return {
    workflowId: runId,
    recoveryDecisions: events
      .filter((e) => e.type === 'recovery.decided')
      .map((e) => e.data as { decision: string; reason: string }),
    writes: invocations
      .filter((i) => i.intents.some((intent) => intent.tool === 'refund.create'))
      .map((i) => ({
        seq: i.seq,
        intents: i.intents.length,
        results: i.results.map((r) => ({ attempt: r.attempt, status: r.status, source: r.source })),
      })),
  };
}

function refundRows(path: string): SoakRefundRow[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT id, order_id, idempotency_key, status FROM refunds').all() as SoakRefundRow[];
  } finally {
    db.close();
  }
}

describe('soak: refunds through approval while workers are killed and PostgreSQL restarts', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  it(`${RUNS} refund runs: every run settled, every approved eligible order refunded exactly once`, async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    const pg: TestPostgres = await startTestPostgres();
    cleanup.push(() => pg.stop());
    expect(pg.owned, 'the soak stops and starts PostgreSQL: HARNESS_TEST_PG_URL cannot be used').toBe(true);
    const storeUrl = pg.freshUrl();
    const dir = mkdtempSync(join(tmpdir(), 'harness-soak-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const refundPath = join(dir, 'refund.db');
    const refundStore: RefundStore = openRefundStore(refundPath);
    cleanup.push(() => refundStore.close());
    const tag = Date.now().toString(36).toUpperCase();
    const orders = seedSoakOrders(refundStore, RUNS, INELIGIBLE_EVERY, tag);

    const connection = await Connection.connect({ address: inject('temporalAddress') });
    cleanup.push(() => connection.close());
    const client = new Client({ connection, namespace: inject('temporalNamespace') });
    const taskQueue = uniqueTaskQueue('soak');
    const fleet = new WorkerFleet(
      SLOT_DRILLS.slice(0, WORKER_SLOTS).map((drill) => ({
        taskQueue,
        dir,
        env: { HARNESS_STORE_URL: storeUrl, ...drill },
      })),
      join(ARTIFACTS, 'workers'),
    );
    cleanup.push(() => fleet.stop());
    await fleet.start();

    // The faults: a SIGKILL every 2-5 s, and two PostgreSQL outages.
    let faultsOn = true;
    let ended = 0;
    let outages = 0;
    // A failing fault driver is reported after the runs, never as an unhandled rejection.
    const settled = (p: Promise<void>) =>
      p.then(
        () => undefined,
        (err: unknown) => err,
      );
    const killer = settled(
      (async () => {
        while (faultsOn) {
          await sleep(between(KILL_EVERY_MS));
          await fleet.atLeast(2);
          if (faultsOn) await fleet.killRandom();
        }
      })(),
    );
    const outagesDone = settled(
      (async () => {
        for (const share of OUTAGES_AT) {
          while (ended < Math.ceil(RUNS * share)) await sleep(250);
          await pg.halt();
          outages++;
          await sleep(OUTAGE_MS);
          await pg.resume();
        }
      })(),
    );

    const progress = setInterval(() => {
      const f = fleet.counts();
      console.error(
        `[soak] ended ${ended}/${RUNS}, workers live ${fleet.liveCount()}/${WORKER_SLOTS}, kills ${f.kills}, starts ${f.starts} (${f.failedStarts} failed), outages ${outages}`,
      );
    }, 15_000);
    cleanup.push(() => clearInterval(progress));
    const findRefundByKey = (key: string) => refundStore.findRefundByKey(key);
    const started: SoakRun[] = [];
    const records = await inPool(orders, IN_FLIGHT, async (order) => {
      const run = await startSoakRun({
        client,
        taskQueue,
        workflowId: `soak-${tag}-${order.orderId.slice(-3)}`,
        order,
        input: { activityTimeouts: ACTIVITY_TIMEOUTS },
      });
      started.push(run);
      const record = await watchSoakRun(run, { timeoutMs: RUN_TIMEOUT_MS, findRefundByKey });
      ended++;
      return record;
    });
    cleanup.push(() =>
      Promise.all(started.map((r) => r.handle.terminate('soak cleanup').catch(() => undefined))),
    );

    // Faults stop; every slot is up again; runs still open get a generous, fault-free wait.
    const outageError = await outagesDone;
    faultsOn = false;
    const killerError = await killer;
    expect(outageError ?? killerError).toBeUndefined();
    await fleet.settle();
    const open = started.filter((r) => !r.record.closed);
    await Promise.all(open.map((r) => watchSoakRun(r, { timeoutMs: SETTLE_TIMEOUT_MS, findRefundByKey })));

    // Every worker process's log is written when it is killed: stop the fleet before reading them.
    await fleet.stop();
    const evidenceStore = await openEvidenceStore(storeUrl);
    cleanup.push(() => evidenceStore.close());
    const evidence: RunEvidence[] = [];
    const histories: HistoryFaults[] = [];
    for (const run of started) {
      evidence.push(await evidenceOf(evidenceStore, run.record.workflowId));
      histories.push(await historyFaults(run.handle));
    }
    const refused = refusedEventWrites(join(ARTIFACTS, 'workers'));
    const report = buildSoakReport({
      config: {
        runs: RUNS,
        inFlight: IN_FLIGHT,
        workerSlots: WORKER_SLOTS,
        ineligibleEvery: INELIGIBLE_EVERY,
        killEveryMs: `${KILL_EVERY_MS[0]}-${KILL_EVERY_MS[1]}`,
        postgresOutages: OUTAGES_AT.length,
        writeHeartbeatSeconds: ACTIVITY_TIMEOUTS.writeHeartbeatSeconds,
        evidenceStore: 'postgres',
      },
      runs: records,
      refunds: refundRows(refundPath),
      evidence,
      histories,
      fleet: fleet.counts(),
      postgresOutages: outages,
      refusedEventWrites: refused,
    });
    const out = ARTIFACTS;
    writeFileSync(
      join(out, 'write-soak.json'),
      `${JSON.stringify({ report, runs: records, evidence, refusedEventWrites: refused }, null, 2)}\n`,
    );
    writeFileSync(join(out, 'write-soak.md'), `${soakReportMarkdown(report)}\n`);
    console.log(soakReportMarkdown(report));

    expect(report.invariants).toEqual({
      unsettledRuns: 0,
      runsWithoutResult: 0,
      ordersRefundedMoreThanOnce: 0,
      approvedEligibleOrdersWithoutRefund: 0,
      ineligibleOrdersRefunded: 0,
      refundsOfNoRun: 0,
      runsWithRefusedEventWrites: 0,
    });
    expect(report.runs.closed).toBe(RUNS);
    expect(report.faults.postgresOutages).toBe(OUTAGES_AT.length);
    expect(report.faults.workerKills).toBeGreaterThan(0);
  });
});
