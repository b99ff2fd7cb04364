/**
 * The write tool and reconciler example quoted in docs/extending.md ("Write tools and the
 * reconciler"), compiled and run by test/unit/docs/extending-examples.test.ts.
 */
import type { ToolExecutor } from '../../src/contract/tool.js';

/** An external order system (in memory here), keyed by the harness's idempotency key. */
export class OrderSystem {
  private readonly byKey = new Map<string, { orderId: string; sku: string; quantity: number }>();
  /** Creates at most one order per key: a second call with the same key returns the first order. */
  place(key: string, sku: string, quantity: number): Promise<{ orderId: string }> {
    const order = this.byKey.get(key) ?? { orderId: `ORD-${this.byKey.size + 1}`, sku, quantity };
    this.byKey.set(key, order);
    return Promise.resolve({ orderId: order.orderId });
  }
  /** The order holding `key`, read from the primary (never a replica that may lag). */
  findByKey(key: string): Promise<{ orderId: string } | undefined> {
    const order = this.byKey.get(key);
    return Promise.resolve(order && { orderId: order.orderId });
  }
  get count(): number {
    return this.byKey.size;
  }
}

// --- reconciler ---
/** `order.place@v1` (effect `write`): the executor dedupes by the key, the reconciler looks it up. */
export function orderExecutor(orders: OrderSystem): ToolExecutor {
  return {
    async execute(_ctx, call) {
      const { sku, quantity } = call.args as { sku: string; quantity: number };
      // The key makes a second attempt of the same call find the first order instead of a new one.
      const order = await orders.place(call.idempotencyKey, sku, quantity);
      return { output: { orderId: order.orderId }, externalId: order.orderId };
    },
    // Read-only. A throw (the system is down) counts as `unknown`: a person decides.
    async reconcile(_ctx, call) {
      const found = await orders.findByKey(call.idempotencyKey);
      if (found)
        return {
          outcome: 'succeeded',
          execution: { output: { orderId: found.orderId }, externalId: found.orderId },
        };
      // Not found on the primary. Another attempt under the same key is safe because `place`
      // dedupes by it; a system that did not would have to answer 'unknown' here.
      return { outcome: 'not_applied' };
    },
  };
}
// --- end reconciler ---

/** Runs the example: a lost attempt that took effect, one that did not, and a second attempt. */
export async function run(): Promise<{
  lost: unknown;
  never: unknown;
  again: unknown;
  orders: number;
}> {
  const orders = new OrderSystem();
  const executor = orderExecutor(orders);
  const ctx = { signal: new AbortController().signal, heartbeat: () => undefined };
  const call = (seq: number) => ({
    runId: 'run-1',
    seq,
    tool: 'order.place',
    version: 'v1',
    args: { sku: 'mug', quantity: 2 },
    idempotencyKey: `run-1/${seq}`,
  });
  await executor.execute(ctx, call(1)); // its answer was lost with the worker
  const lost = await executor.reconcile!(ctx, call(1));
  const never = await executor.reconcile!(ctx, call(2)); // the worker died before the order
  await executor.execute(ctx, call(1)); // a too-early `not_applied` would lead here: no second order
  const again = await executor.execute(ctx, call(1));
  return { lost, never, again, orders: orders.count };
}
