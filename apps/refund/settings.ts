import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The refund app's settings: `HARNESS_REFUND_DB`, its business store (default `.data/refund.db` in the
 * working directory, beside the evidence store's default).
 */
export function refundSettings(env: NodeJS.ProcessEnv = process.env): { refundStorePath: string } {
  return { refundStorePath: env.HARNESS_REFUND_DB ?? resolve(process.cwd(), '.data', 'refund.db') };
}

/**
 * The principal registry of the refund and showcase apps' workers: `HARNESS_PRINCIPALS` when set, else
 * the main job's demo registry `.data/principals.json` when it exists, else none (every decision is
 * refused until a registry is configured; docs/authorization.md).
 */
export function refundPrincipals(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.HARNESS_PRINCIPALS) return env.HARNESS_PRINCIPALS;
  const demo = resolve(process.cwd(), '.data', 'principals.json');
  return existsSync(demo) ? demo : undefined;
}
