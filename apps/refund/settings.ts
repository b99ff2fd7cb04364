import { resolve } from 'node:path';

/**
 * The refund app's settings: `HARNESS_REFUND_DB`, its business store (default `.data/refund.db` in the
 * working directory, beside the evidence store's default).
 */
export function refundSettings(env: NodeJS.ProcessEnv = process.env): { refundStorePath: string } {
  return { refundStorePath: env.HARNESS_REFUND_DB ?? resolve(process.cwd(), '.data', 'refund.db') };
}
