import type { FastifyInstance } from 'fastify';

/**
 * How long closing the service waits for handlers still running (a Temporal call in its client's
 * retry backoff can take seconds). Past it the service closes anyway.
 */
const CLOSE_WAIT_MS = 15_000;

/** Resolves when every promise settled or `ms` passed, whichever is first. Never rejects. */
async function settledWithin(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

/**
 * Makes closing `app` wait for the handlers still running (a caller that went away does not stop its
 * handler), at most {@link CLOSE_WAIT_MS}, after `beforeWait` (which tells them to stop), so the
 * caller can close the Temporal connection and the store after it without a call of ours still in
 * flight or in its client's retry backoff. Call before any route is added: only routes added after
 * are tracked. A `beforeWait` that rejects fails the close.
 */
export function waitForHandlersOnClose(app: FastifyInstance, beforeWait: () => Promise<void>): void {
  const running = new Set<Promise<unknown>>();
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function tracked(this: FastifyInstance, req, reply) {
      const result: unknown = handler.call(this, req, reply);
      if (result instanceof Promise) {
        running.add(result);
        void result.then(
          () => running.delete(result),
          () => running.delete(result),
        );
      }
      return result;
    };
  });
  app.addHook('onClose', async () => {
    await beforeWait();
    await settledWithin([...running], CLOSE_WAIT_MS);
  });
}
