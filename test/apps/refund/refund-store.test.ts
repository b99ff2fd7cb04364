import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import { openRefundStore } from '../../../apps/refund/business/refund-store.js';
import type { RefundStore } from '../../../apps/refund/business/refund-store.js';
import { defaultSeedData, SEED_ORDERS } from '../../../apps/refund/business/seed-data.js';
import { NO_LATENCY } from '../../../apps/refund/business/store-latency.js';
import { NOW, seededStore, tempDir } from './refund-test-support.js';

const HOUR = 3_600_000;

describe('refund store', () => {
  let dir: string;
  let cleanup: () => void;
  let store: RefundStore;

  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    store = seededStore(dir);
  });
  afterEach(() => {
    store.close();
    cleanup();
  });

  it('creates the schema in WAL mode with a busy timeout', () => {
    const db = new Database(store.path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((t) => t.name);
      expect(tables).toEqual(['logistics', 'orders', 'refund_policies', 'refunds']);
      expect(db.pragma('user_version', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it('seeds the order situations relative to now', async () => {
    const over72 = await store.readOrder(SEED_ORDERS.paidUnshippedOver72h);
    expect(over72).toMatchObject({ customerId: 'C1001', status: 'paid', currency: 'CNY', version: 1 });
    expect((NOW.getTime() - Date.parse(over72!.paidAt)) / HOUR).toBeGreaterThanOrEqual(72);
    expect((await store.readLogistics(SEED_ORDERS.paidUnshippedOver72h))?.status).toBe('not_shipped');

    const recent = await store.readOrder(SEED_ORDERS.paidUnshippedRecent);
    expect((NOW.getTime() - Date.parse(recent!.paidAt)) / HOUR).toBeLessThan(72);
    expect((await store.readLogistics(SEED_ORDERS.shipped))?.status).toBe('in_transit');
    expect((await store.readOrder(SEED_ORDERS.delivered))?.status).toBe('delivered');
    expect((await store.readOrder(SEED_ORDERS.largeAmount))?.amountCents).toBeGreaterThan(500_000);
    expect((await store.readOrder(SEED_ORDERS.otherCustomer))?.customerId).toBe('C2002');
    expect((await store.readOrder(SEED_ORDERS.cancelled))?.status).toBe('cancelled');
    expect(await store.readOrder('ORD-404')).toBeUndefined();
  });

  it('re-seeding identical data keeps versions; changed rows get version + 1', async () => {
    store.seed();
    expect((await store.readOrder(SEED_ORDERS.shipped))?.version).toBe(1);
    const data = defaultSeedData(NOW);
    store.seed({
      ...data,
      orders: data.orders.map((o) =>
        o.id === SEED_ORDERS.shipped ? { ...o, status: 'delivered' as const } : o,
      ),
      logistics: data.logistics.map((l) =>
        l.orderId === SEED_ORDERS.shipped ? { ...l, status: 'delivered' as const } : l,
      ),
    });
    expect(await store.readOrder(SEED_ORDERS.shipped)).toMatchObject({ status: 'delivered', version: 2 });
    expect(await store.readLogistics(SEED_ORDERS.shipped)).toMatchObject({ status: 'delivered', version: 2 });
    expect((await store.readOrder(SEED_ORDERS.delivered))?.version).toBe(1);
  });

  it('seedIfEmpty seeds a fresh file once and leaves a seeded one alone', async () => {
    const fresh = openRefundStore(join(dir, 'fresh.db'), { clock: () => NOW, latency: NO_LATENCY });
    try {
      expect(fresh.seedIfEmpty()).toBe(true);
      const before = await fresh.readOrder(SEED_ORDERS.paidUnshippedOver72h);
      const later = openRefundStore(fresh.path, {
        clock: () => new Date(NOW.getTime() + 5 * HOUR),
        latency: NO_LATENCY,
      });
      try {
        expect(later.seedIfEmpty()).toBe(false);
        expect(await later.readOrder(SEED_ORDERS.paidUnshippedOver72h)).toEqual(before);
      } finally {
        later.close();
      }
    } finally {
      fresh.close();
    }
  });

  it('rejects seed data that breaks a constraint and writes nothing', async () => {
    const data = defaultSeedData(NOW);
    let error: unknown;
    try {
      store.seed({
        ...data,
        orders: [
          { ...data.orders[0]!, id: 'ORD-NEW' },
          { ...data.orders[0]!, amountCents: 0 },
        ],
      });
    } catch (err) {
      error = err;
    }
    expect(isHarnessError(error, 'refund.seed_invalid')).toBe(true);
    expect(await store.readOrder('ORD-NEW')).toBeUndefined();
  });

  it('returns only the policies in force that apply to the statuses', async () => {
    const refs = (await store.searchPolicies({ orderStatus: 'paid', logisticsStatus: 'not_shipped' })).map(
      (p) => `${p.id}@v${p.version}`,
    );
    expect(refs).toEqual(['R001@v18', 'R004@v18']);
    const r001 = (await store.searchPolicies({ query: 'unshipped' }))[0];
    expect(r001).toMatchObject({ id: 'R001', version: 18, rule: { maxHoursUnshippedForFullRefund: 72 } });
    expect((await store.searchPolicies({ orderStatus: 'shipped' })).map((p) => p.id)).toEqual([
      'R002',
      'R004',
    ]);
    expect(await store.searchPolicies({ query: 'nothing-matches-this' })).toEqual([]);
  });

  it('shows the superseded policy version at a time before the current one took effect', async () => {
    const past = openRefundStore(store.path, {
      clock: () => new Date('2025-06-01T00:00:00Z'),
      latency: NO_LATENCY,
    });
    try {
      const r001 = await past.searchPolicies({ query: 'R001' });
      expect(r001.map((p) => p.version)).toEqual([17]);
      expect(r001[0]?.rule.maxHoursUnshippedForFullRefund).toBe(48);
    } finally {
      past.close();
    }
  });

  it('refuses refunds for unknown or cancelled orders and over the order amount, writing nothing', async () => {
    const attempt = async (
      orderId: string,
      amountCents: number,
      key: string,
    ): Promise<string | undefined> => {
      try {
        await store.createRefund({ orderId, amountCents, reason: 'test', idempotencyKey: key });
        return undefined;
      } catch (err) {
        return isHarnessError(err) ? err.code : String(err);
      }
    };
    expect(await attempt('ORD-404', 100, 'k1')).toBe('refund.order_not_found');
    expect(await attempt(SEED_ORDERS.cancelled, 100, 'k2')).toBe('refund.order_not_refundable');
    expect(await attempt(SEED_ORDERS.paidUnshippedOver72h, 12_901, 'k3')).toBe('refund.amount_exceeds_order');
    expect(await attempt(SEED_ORDERS.paidUnshippedOver72h, 10_000, 'k4')).toBeUndefined();
    expect(await attempt(SEED_ORDERS.paidUnshippedOver72h, 2_901, 'k5')).toBe('refund.amount_exceeds_order');
    expect(await attempt(SEED_ORDERS.paidUnshippedOver72h, 2_900, 'k6')).toBeUndefined();
    expect(await attempt(SEED_ORDERS.shipped, 100, 'k6')).toBe('refund.idempotency_key_reused');
    const db = new Database(store.path, { readonly: true });
    try {
      const keys = db.prepare<[], { k: string }>('SELECT idempotency_key AS k FROM refunds ORDER BY k').all();
      expect(keys.map((r) => r.k)).toEqual(['k4', 'k6']);
    } finally {
      db.close();
    }
  });

  it('returns the same refund for the same idempotency key and keeps one row', async () => {
    const input = {
      orderId: SEED_ORDERS.paidUnshippedOver72h,
      amountCents: 500,
      reason: 'late',
      idempotencyKey: 'run-1:4',
    };
    const first = await store.createRefund(input);
    const second = await store.createRefund(input);
    expect(first.created).toBe(true);
    expect(second).toEqual({ refund: first.refund, created: false });
    expect(await store.findRefundByKey('run-1:4')).toEqual(first.refund);
    expect(await store.readRefund(first.refund.id)).toEqual(first.refund);
    expect(first.refund).toMatchObject({
      status: 'succeeded',
      currency: 'CNY',
      createdAt: NOW.toISOString(),
    });
  });

  describe('seedCase', () => {
    it('seeds a fresh store from an evaluation case initial_state', async () => {
      await store.createRefund({
        orderId: SEED_ORDERS.paidUnshippedOver72h,
        amountCents: 1,
        reason: 'x',
        idempotencyKey: 'old',
      });
      const seeded = store.seedCase(
        { order_status: 'paid', logistics_status: 'not_shipped', hours_since_payment: 72 },
        NOW,
      );
      expect(seeded.order).toEqual({
        id: 'ORD-CASE-1',
        customerId: 'C1001',
        status: 'paid',
        amountCents: 12_900,
        currency: 'CNY',
        paidAt: new Date(NOW.getTime() - 72 * HOUR).toISOString(),
        phone: '13800001001',
        version: 1,
      });
      expect(seeded.logistics).toMatchObject({ orderId: 'ORD-CASE-1', status: 'not_shipped', version: 1 });
      expect(await store.readOrder(SEED_ORDERS.paidUnshippedOver72h)).toBeUndefined();
      expect(await store.findRefundByKey('old')).toBeUndefined();
      expect((await store.searchPolicies({ orderStatus: 'paid' })).map((p) => p.id)).toEqual([
        'R001',
        'R004',
      ]);
    });

    it('takes optional order id, customer and amount and derives logistics from the order status', () => {
      const seeded = store.seedCase(
        { order_status: 'shipped', order_id: 'ORD-77', customer_id: 'C9', amount_cents: 700_000 },
        NOW,
      );
      expect(seeded.order).toMatchObject({
        id: 'ORD-77',
        customerId: 'C9',
        amountCents: 700_000,
        status: 'shipped',
      });
      expect(seeded.logistics.status).toBe('in_transit');
    });

    it('is deterministic for the same now', () => {
      const state = { order_status: 'paid', hours_since_payment: 80 };
      const a = store.seedCase(state, NOW);
      const b = store.seedCase(state, NOW);
      expect(b).toEqual(a);
    });

    it('rejects unknown keys and bad values and leaves the store unchanged', async () => {
      for (const bad of [
        { order_status: 'lost' },
        { order_status: 'paid', hours: 3 },
        null,
        { order_status: 'paid', amount_cents: -1 },
      ]) {
        let error: unknown;
        try {
          store.seedCase(bad, NOW);
        } catch (err) {
          error = err;
        }
        expect(isHarnessError(error, 'refund.case_state_invalid')).toBe(true);
      }
      expect(await store.readOrder(SEED_ORDERS.paidUnshippedOver72h)).toBeDefined();
    });
  });

  it('keeps data across reopening the file', async () => {
    const { refund } = await store.createRefund({
      orderId: SEED_ORDERS.delivered,
      amountCents: 800,
      reason: 'damaged',
      idempotencyKey: 'persist',
    });
    store.close();
    store = openRefundStore(join(dir, 'business.db'), { clock: () => NOW, latency: NO_LATENCY });
    expect(await store.readRefund(refund.id)).toEqual(refund);
  });
});
