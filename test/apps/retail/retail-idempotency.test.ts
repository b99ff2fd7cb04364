import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/registry/index.js';
import type { RetailDb } from '../../../apps/retail/db/retail-db.js';
import { exportRetailDb } from '../../../apps/retail/db/retail-export.js';
import { createRetailExecutors, registerRetailTools } from '../../../apps/retail/tools/retail-tools.js';
import { retailToolDefinitions } from '../../../apps/retail/workflow/retail-definitions.js';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';
import { CONTEXT, makeCall, retailTemplate } from './retail-test-support.js';

let db: RetailDb;
beforeEach(() => {
  db = retailTemplate().fresh();
});
afterEach(() => db.close());

const cancel = { order_id: '#W6779827', reason: 'no longer needed' };
const giftBalance = () => {
  const m = db.paymentMethod('ethan_lopez_6291', 'gift_card_7219486');
  return m?.source === 'gift_card' ? m.balance : undefined;
};
const appliedKeys = () => db.sqlite.prepare('SELECT COUNT(*) FROM applied_writes').pluck().get();

describe('retail tool definitions in the harness registry', () => {
  it('registers all sixteen: reads and generic tools as read, the seven writes as idempotent writes', () => {
    const registry = new ToolRegistry();
    registerRetailTools(registry, db);
    const listed = registry.list();
    expect(listed).toHaveLength(16);
    const writes = listed.filter((d) => d.effect === 'write').map((d) => d.name);
    expect(writes).toEqual([
      T.cancelPendingOrder,
      T.exchangeDeliveredOrderItems,
      T.modifyPendingOrderAddress,
      T.modifyPendingOrderItems,
      T.modifyPendingOrderPayment,
      T.modifyUserAddress,
      T.returnDeliveredOrderItems,
    ]);
    for (const d of listed) {
      expect(d.version).toBe('v1');
      expect(d.idempotentByKey === true).toBe(d.effect === 'write');
      expect(registry.get(d.name, 'v1').executor.reconcile !== undefined).toBe(d.effect === 'write');
    }
    expect(retailToolDefinitions().map((d) => d.name)).toEqual(listed.map((d) => d.name));
  });

  it('validates calls against the closed schemas, but leaves unknown ids and reasons to the tool', () => {
    const registry = new ToolRegistry();
    registerRetailTools(registry, db);
    expect(
      registry.validateCall(T.cancelPendingOrder, 'v1', { order_id: 'nope', reason: 'whatever' }).ok,
    ).toBe(true);
    const extra = registry.validateCall(T.cancelPendingOrder, 'v1', { ...cancel, force: true });
    expect(extra.ok).toBe(false);
    const missing = registry.validateCall(T.returnDeliveredOrderItems, 'v1', {
      order_id: '#W1',
      item_ids: ['1'],
    });
    expect(missing.ok).toBe(false);
  });
});

describe('retail writes dedupe by the idempotency key', () => {
  it('a repeat under the same key returns the first result and changes nothing', async () => {
    const executor = createRetailExecutors(db)[T.cancelPendingOrder];
    const call = makeCall(T.cancelPendingOrder, cancel, 7);
    const first = await executor?.execute(CONTEXT, call);
    const afterFirst = exportRetailDb(db);
    expect(giftBalance()).toBe(4128.45);
    const again = await executor?.execute(CONTEXT, call);
    expect(again).toStrictEqual(first);
    expect(exportRetailDb(db)).toStrictEqual(afterFirst);
    expect(giftBalance()).toBe(4128.45);
    // A new key is a new call: now the order is cancelled, so the benchmark refuses it.
    await expect(executor?.execute(CONTEXT, makeCall(T.cancelPendingOrder, cancel, 8))).rejects.toMatchObject(
      {
        code: 'retail.tool_error',
        message: 'Non-pending order cannot be cancelled',
      },
    );
  });

  it('records a business failure under its key: a repeat answers it again even after the data changed', async () => {
    const executors = createRetailExecutors(db);
    const call = makeCall(T.cancelPendingOrder, { ...cancel, reason: 'changed my mind' }, 1);
    await expect(executors[T.cancelPendingOrder]?.execute(CONTEXT, call)).rejects.toMatchObject({
      code: 'retail.tool_error',
      message: 'Invalid reason',
      details: { replayed: false },
    });
    await executors[T.modifyPendingOrderAddress]?.execute(
      CONTEXT,
      makeCall(
        T.modifyPendingOrderAddress,
        {
          order_id: '#W6779827',
          address1: 'x',
          address2: '',
          city: 'y',
          state: 'z',
          country: 'USA',
          zip: '1',
        },
        2,
      ),
    );
    await expect(executors[T.cancelPendingOrder]?.execute(CONTEXT, call)).rejects.toMatchObject({
      message: 'Invalid reason',
      details: { replayed: true },
    });
    expect(appliedKeys()).toBe(2);
  });

  it('refuses a key already used for another call, writing nothing', async () => {
    const executors = createRetailExecutors(db);
    await executors[T.cancelPendingOrder]?.execute(CONTEXT, makeCall(T.cancelPendingOrder, cancel, 1));
    const before = exportRetailDb(db);
    const other = makeCall(T.cancelPendingOrder, { order_id: '#W8367380', reason: 'no longer needed' }, 1);
    await expect(executors[T.cancelPendingOrder]?.execute(CONTEXT, other)).rejects.toMatchObject({
      code: 'retail.idempotency_key_reused',
    });
    expect(exportRetailDb(db)).toStrictEqual(before);
    expect(db.order('#W8367380')?.status).toBe('pending');
  });

  it('rolls back the effect when the record cannot be written (no effect without its key)', async () => {
    db.sqlite.exec(
      `CREATE TRIGGER refuse BEFORE INSERT ON applied_writes BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    const executor = createRetailExecutors(db)[T.cancelPendingOrder];
    await expect(executor?.execute(CONTEXT, makeCall(T.cancelPendingOrder, cancel, 1))).rejects.toThrow(
      'disk full',
    );
    expect(db.order('#W6779827')?.status).toBe('pending');
    expect(giftBalance()).toBe(49);
  });
});

describe('retail write reconciler', () => {
  it('answers not_applied before, succeeded with the recorded output after, unknown for other arguments', async () => {
    const executor = createRetailExecutors(db)[T.cancelPendingOrder];
    const call = makeCall(T.cancelPendingOrder, cancel, 3);
    expect(await executor?.reconcile?.(CONTEXT, call)).toEqual({ outcome: 'not_applied' });
    const execution = await executor?.execute(CONTEXT, call);
    expect(await executor?.reconcile?.(CONTEXT, call)).toEqual({ outcome: 'succeeded', execution });
    const changed = { ...call, args: { ...cancel, reason: 'ordered by mistake' } };
    expect(await executor?.reconcile?.(CONTEXT, changed)).toEqual({ outcome: 'unknown' });
    // Another tool asking about this key: not its call.
    const address = createRetailExecutors(db)[T.modifyUserAddress];
    expect(await address?.reconcile?.(CONTEXT, { ...call, tool: T.modifyUserAddress })).toEqual({
      outcome: 'unknown',
    });
  });

  it('answers not_applied for a recorded business failure, and changes nothing while asking', async () => {
    const executor = createRetailExecutors(db)[T.cancelPendingOrder];
    const call = makeCall(T.cancelPendingOrder, { order_id: '#W2611340', reason: 'no longer needed' }, 4);
    await expect(executor?.execute(CONTEXT, call)).rejects.toMatchObject({ code: 'retail.tool_error' });
    const before = exportRetailDb(db);
    const keys = appliedKeys();
    expect(await executor?.reconcile?.(CONTEXT, call)).toEqual({ outcome: 'not_applied' });
    expect(exportRetailDb(db)).toStrictEqual(before);
    expect(appliedKeys()).toBe(keys);
  });
});
