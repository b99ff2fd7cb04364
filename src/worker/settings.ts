import { resolve } from 'node:path';

/**
 * Settings shared by the worker, the CLI and the main job, from the environment:
 * - `HARNESS_TASK_QUEUE` (default `agent-harness`)
 * - `HARNESS_STORE_URL` evidence store (default `sqlite:.data/evidence.db` in the working directory;
 *   `postgres://...` for many hosts)
 */
export interface HarnessSettings {
  readonly taskQueue: string;
  readonly storeUrl: string;
}

export function harnessSettings(env: NodeJS.ProcessEnv = process.env): HarnessSettings {
  const data = resolve(process.cwd(), '.data');
  return {
    taskQueue: env.HARNESS_TASK_QUEUE ?? 'agent-harness',
    storeUrl: env.HARNESS_STORE_URL ?? `sqlite:${resolve(data, 'evidence.db')}`,
  };
}

/** A store URL safe to print: any `user:password@` part is removed. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1***@');
}
