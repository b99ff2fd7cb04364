import { resolve } from 'node:path';
import type { SearchAttributesMode } from '../devserver/search-attributes.js';

/**
 * Settings shared by the worker, the CLI and the main job, from the environment:
 * - `HARNESS_TASK_QUEUE` (default `agent-harness`)
 * - `HARNESS_STORE_URL` evidence store (default `sqlite:.data/evidence.db` in the working directory;
 *   `postgres://...` for many hosts)
 * - `HARNESS_SEARCH_ATTRIBUTES`: what a worker process and the run service do about the namespace's
 *   search attributes at start, `register` (default), `check` or `skip` (see {@link SearchAttributesMode});
 *   `check` where the processes may not change the namespace (the operator creates them once).
 */
export interface HarnessSettings {
  readonly taskQueue: string;
  readonly storeUrl: string;
  readonly searchAttributes: SearchAttributesMode;
}

/** The values of {@link SearchAttributesMode}, in the order messages list them. */
export const SEARCH_ATTRIBUTE_MODES: readonly SearchAttributesMode[] = ['register', 'check', 'skip'];

/**
 * `value` as a {@link SearchAttributesMode}; undefined gives `register`.
 * @throws Error naming `source` (the option or variable it came from) and the valid values.
 */
export function parseSearchAttributesMode(value: string | undefined, source: string): SearchAttributesMode {
  if (value === undefined) return 'register';
  const mode = SEARCH_ATTRIBUTE_MODES.find((m) => m === value.trim());
  if (mode === undefined)
    throw new Error(`${source}: '${value}' is not one of ${SEARCH_ATTRIBUTE_MODES.join(', ')}`);
  return mode;
}

/**
 * The settings of this process's environment.
 * @throws Error when `HARNESS_SEARCH_ATTRIBUTES` is set to something else than a mode.
 */
export function harnessSettings(env: NodeJS.ProcessEnv = process.env): HarnessSettings {
  const data = resolve(process.cwd(), '.data');
  return {
    taskQueue: env.HARNESS_TASK_QUEUE ?? 'agent-harness',
    storeUrl: env.HARNESS_STORE_URL ?? `sqlite:${resolve(data, 'evidence.db')}`,
    searchAttributes: parseSearchAttributesMode(env.HARNESS_SEARCH_ATTRIBUTES, 'HARNESS_SEARCH_ATTRIBUTES'),
  };
}

/** A store URL safe to print: any `user:password@` part is removed. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1***@');
}
