import { fileURLToPath } from 'node:url';

/** The refund app's settings: `HARNESS_REFUND_DB`, its business store (default `.data/refund.db` in this repository). */
export function refundSettings(env: NodeJS.ProcessEnv = process.env): { refundStorePath: string } {
  return {
    refundStorePath:
      env.HARNESS_REFUND_DB ?? fileURLToPath(new URL('../../.data/refund.db', import.meta.url)),
  };
}
