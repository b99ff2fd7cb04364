import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import type { RefundStore } from '../../apps/refund/business/refund-store.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { refundRowsIn, type RefundRow } from './fault-rig.js';

/** refund.create is the 4th invocation of the refund graph. */
const CREATE_SEQ = 4;

/**
 * Make the evidence store unavailable once, right after the refund row is committed and before the
 * tool activity records the result (seed 004, fault 3: the tool succeeded, publishing its result
 * failed). `outage` returns once the store is down; it brings the store back on its own.
 */
function failStoreAfterCommit(store: RefundStore, outage: () => Promise<void>): void {
  const create = store.createRefund.bind(store);
  let fired = false;
  store.createRefund = async (...args) => {
    const created = await create(...args);
    if (!fired) {
      fired = true;
      await outage();
    }
    return created;
  };
}

/** Another process holds SQLite's write lock for `ms` (the store's writes time out as busy). */
function lockSqlite(path: string, ms: number): Promise<void> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ['-e', script, path, String(ms)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the lock holder exited early (${code})`)));
    child.stdout.once('data', () => resolve());
  });
}

/** The refunds made under the run's refund.create key. */
function refundRows(h: HarnessFixture, handle: WorkflowHandle): RefundRow[] {
  return refundRowsIn(h.dir, `${handle.workflowId}/${CREATE_SEQ}`);
}

/** Run a refund through approval; the outage strikes after the commit. Check the settled outcome. */
async function refundThroughOutage(h: HarnessFixture, fixture?: string): Promise<void> {
  const handle = await h.start({
    task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
  });
  const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
  await decide(handle, 'approve', {}, waiting);
  const result = (await handle.result()) as { status: string; output: Record<string, unknown> };
  const view = await handle.query<RunView>('state');
  const rows = refundRows(h, handle);
  // Exactly one refund, and the run says so: settled by the reconciler, nobody told it failed.
  expect(rows).toHaveLength(1);
  expect(result.status).toBe('succeeded');
  expect(result.output).toMatchObject({ outcome: 'refunded', refundId: rows[0]!.id });
  expect(String(result.output.message)).not.toMatch(/cannot|fail|error|unavailable|busy/i);
  expect(view.invocations.find((i) => i.seq === CREATE_SEQ)).toMatchObject({
    tool: 'refund.create',
    status: 'succeeded',
    resolvedBy: 'reconciler',
  });
  const record = await h.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
  expect(record?.intents).toHaveLength(1);
  expect(record?.result).toMatchObject({
    status: 'succeeded',
    source: 'reconciler',
    externalId: rows[0]!.id,
  });
  const events = await h.composition.store.listEvents(handle.workflowId);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(
    events.filter((e) => e.type === 'recovery.decided').map((e) => (e.data as { decision: string }).decision),
  ).toEqual(['reconcile', 'resume']);
  const unknown = events.find(
    (e) => e.type === 'tool.failed' && (e.data as { status: string }).status === 'outcome_unknown',
  );
  expect(unknown).toBeDefined();
  expect(
    events.some(
      (e) => e.type === 'tool.failed' && (e.data as { status: string }).status === 'failed_terminal',
    ),
  ).toBe(false);
  if (fixture) await recordFixtureIfAsked(h.t.client, handle.workflowId, fixture);
}

describe('faults: the evidence store fails after the refund committed', { timeout: 240_000 }, () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  });

  it('PostgreSQL stopped before the result is recorded, then started again: reconciled, one refund', async () => {
    const pgServer: TestPostgres = await startTestPostgres();
    cleanup.push(() => pgServer.stop());
    const h = await createHarnessFixture('store-outage-pg', { storeUrl: pgServer.freshUrl() });
    cleanup.push(() => h.close());
    failStoreAfterCommit(h.composition.refundStore, async () => {
      await pgServer.halt();
      setTimeout(() => void pgServer.resume(), 6_000);
    });
    await refundThroughOutage(h, 'refund-graph-baseline3-store-outage-v1');
  });

  it('SQLite locked by another process before the result is recorded, then released: reconciled, one refund', async () => {
    const h = await createHarnessFixture('store-outage-sqlite');
    cleanup.push(() => h.close());
    // Longer than the store's busy timeout (10 s): the result write fails as unavailable.
    failStoreAfterCommit(h.composition.refundStore, () => lockSqlite(join(h.dir, 'evidence.db'), 14_000));
    await refundThroughOutage(h);
  });
});
