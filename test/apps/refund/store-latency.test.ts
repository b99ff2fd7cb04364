import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import { openRefundStore } from '../../../apps/refund/business/refund-store.js';
import type { RefundStore } from '../../../apps/refund/business/refund-store.js';
import { SEED_ORDERS } from '../../../apps/refund/business/seed-data.js';
import {
  parseStoreLatency,
  sleepWithHeartbeat,
  storeLatencyFromEnv,
} from '../../../apps/refund/business/store-latency.js';
import { createRefundCreateTool } from '../../../apps/refund/tools/refund-create.js';
import { makeCall, recordingContext, seededStore, tempDir } from './refund-test-support.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return isHarnessError(err) ? err.code : String(err);
  }
};

/** Count refund rows through a separate connection, as another process would see them. */
function refundRows(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM refunds').get()?.n ?? -1;
  } finally {
    db.close();
  }
}

describe('latency configuration', () => {
  it('parses one number for every operation', () => {
    const latency = parseStoreLatency('250');
    expect(latency.phase).toBe('before');
    expect(latency.perOperationMs).toEqual({
      readOrder: 250,
      readLogistics: 250,
      searchPolicies: 250,
      createRefund: 250,
      findRefundByKey: 250,
      readRefund: 250,
    });
  });

  it('parses per-operation values and the phase', () => {
    expect(parseStoreLatency(' createRefund=8000, readOrder=0 ', 'after_commit')).toEqual({
      perOperationMs: { createRefund: 8000, readOrder: 0 },
      phase: 'after_commit',
    });
    expect(parseStoreLatency(undefined)).toEqual({ perOperationMs: {}, phase: 'before' });
    expect(parseStoreLatency('', 'before')).toEqual({ perOperationMs: {}, phase: 'before' });
  });

  it('rejects malformed values with refund.latency_config_invalid', () => {
    for (const bad of [
      '-1',
      '1.5',
      'fast',
      'createRefund=',
      'deleteAll=10',
      'readOrder=1,readOrder=2',
      'a=b=c',
      '3600001',
    ]) {
      expect(
        codeOf(() => parseStoreLatency(bad)),
        bad,
      ).toBe('refund.latency_config_invalid');
    }
    expect(codeOf(() => parseStoreLatency('10', 'during'))).toBe('refund.latency_config_invalid');
  });

  it('reads the environment variables; a store opened without latency ignores them', () => {
    expect(
      storeLatencyFromEnv({
        HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=5',
        HARNESS_REFUND_STORE_LATENCY_PHASE: 'after_commit',
      }),
    ).toEqual({ perOperationMs: { createRefund: 5 }, phase: 'after_commit' });
    const { dir, cleanup } = tempDir();
    vi.stubEnv('HARNESS_REFUND_STORE_LATENCY_MS', 'readRefund=7');
    try {
      // Drills come from test and evaluation compositions, never from the store's own environment.
      const store = openRefundStore(`${dir}/env.db`);
      expect(store.latency).toEqual({ perOperationMs: {}, phase: 'before' });
      store.close();
      vi.stubEnv('HARNESS_REFUND_STORE_LATENCY_MS', 'nonsense=7');
      expect(codeOf(() => storeLatencyFromEnv())).toBe('refund.latency_config_invalid');
    } finally {
      vi.unstubAllEnvs();
      cleanup();
    }
  });
});

describe('sleepWithHeartbeat', () => {
  it('sleeps about the given time and heartbeats while sleeping', async () => {
    const ctx = recordingContext();
    const started = Date.now();
    await sleepWithHeartbeat(1_200, 'readOrder', ctx);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_150);
    expect(ctx.heartbeats.length).toBeGreaterThanOrEqual(2);
    expect(ctx.heartbeats[0]).toMatchObject({ operation: 'readOrder' });
  });

  it('stops at once when the signal aborts, with the abort reason', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = sleepWithHeartbeat(10_000, 'readOrder', recordingContext(controller.signal));
    setTimeout(() => controller.abort(new Error('activity cancelled')), 50);
    await expect(sleeping).rejects.toThrow('activity cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports refund.operation_aborted when the abort reason is not an Error', async () => {
    const controller = new AbortController();
    controller.abort('stop');
    const error = await sleepWithHeartbeat(100, 'createRefund', { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(isHarnessError(error, 'refund.operation_aborted')).toBe(true);
  });
});

describe('injected latency on refund.create', () => {
  let dir: string;
  let cleanup: () => void;
  let store: RefundStore | undefined;
  const args = { orderId: SEED_ORDERS.paidUnshippedOver72h, amountCents: 1_000, reason: 'late' };

  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(() => {
    store?.close();
    cleanup();
  });

  /** Open a seeded store with `latency`, start a refund.create on it and look 600 ms later. */
  async function startSlowCreate(latency: ReturnType<typeof parseStoreLatency>) {
    store = seededStore(dir, { latency });
    const ctx = recordingContext();
    let done = false;
    const pending = createRefundCreateTool(store)
      .executor.execute(ctx, makeCall('refund.create', args))
      .finally(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 600));
    return { ctx, pending, settled: () => done, path: store.path };
  }

  it('phase before: nothing is written while the call sleeps', async () => {
    const { ctx, pending, settled, path } = await startSlowCreate(parseStoreLatency('createRefund=1500'));
    expect(settled()).toBe(false);
    expect(refundRows(path)).toBe(0);
    const execution = await pending;
    expect(refundRows(path)).toBe(1);
    expect(execution.externalId).toBeDefined();
    expect(ctx.heartbeats.length).toBeGreaterThanOrEqual(2);
  });

  it('phase after_commit: the refund row exists while the call is still sleeping', async () => {
    const { ctx, pending, settled, path } = await startSlowCreate(
      parseStoreLatency('createRefund=2000,readOrder=0', 'after_commit'),
    );
    expect(refundRows(path)).toBe(1);
    expect(settled()).toBe(false);
    expect(ctx.heartbeats.length).toBeGreaterThanOrEqual(1);
    const execution = await pending;
    expect(refundRows(path)).toBe(1);
    expect(execution.output.amountCents).toBe(1_000);
  });

  it('phase after_commit_hang: the row is committed, then the call hangs without a heartbeat', async () => {
    const { ctx, pending, settled, path } = await startSlowCreate(
      parseStoreLatency('createRefund=1500,readOrder=0', 'after_commit_hang'),
    );
    expect(refundRows(path)).toBe(1);
    expect(settled()).toBe(false);
    expect(ctx.heartbeats).toHaveLength(0);
    await pending;
    expect(ctx.heartbeats).toHaveLength(0);
    expect(() => parseStoreLatency('1', 'hang')).toThrow(/before, after_commit, after_commit_hang/);
  });

  it('phase after_commit: a call cancelled while sleeping leaves a refund that reconcile finds', async () => {
    store = seededStore(dir, { latency: parseStoreLatency('createRefund=8000', 'after_commit') });
    const tool = createRefundCreateTool(store);
    const controller = new AbortController();
    const call = makeCall('refund.create', args, 7);
    const pending = tool.executor.execute(recordingContext(controller.signal), call);
    setTimeout(() => controller.abort(new Error('worker lost')), 300);
    await expect(pending).rejects.toThrow('worker lost');
    const reconciled = await tool.executor.reconcile!(recordingContext(), call);
    expect(reconciled.outcome).toBe('succeeded');
    expect(refundRows(store.path)).toBe(1);
  });
});
