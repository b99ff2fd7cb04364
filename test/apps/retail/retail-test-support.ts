import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ToolCall, ToolContext, ToolExecution } from '../../../src/contract/tool.js';
import type { RetailDb } from '../../../apps/retail/db/retail-db.js';
import { RetailDbTemplate } from '../../../apps/retail/db/retail-template.js';
import type { RetailDbJson } from '../../../apps/retail/db/retail-types.js';
import { createRetailExecutors } from '../../../apps/retail/tools/retail-tools.js';

/**
 * The benchmark's data, copied unchanged from τ²-bench with its licence (apps/retail/data/README.md);
 * `TAU2_RETAIL_DIR` names another copy of the same files.
 */
export const TAU2_RETAIL_DIR =
  process.env.TAU2_RETAIL_DIR ?? fileURLToPath(new URL('../../../apps/retail/data', import.meta.url));
export const DB_JSON_PATH = `${TAU2_RETAIL_DIR}/db.json`;
export const TASKS_TRAIN_PATH = `${TAU2_RETAIL_DIR}/tasks-train.json`;

let template: RetailDbTemplate | undefined;

/** The template loaded from db.json, once per test file. */
export function retailTemplate(): RetailDbTemplate {
  template ??= RetailDbTemplate.fromJsonFile(DB_JSON_PATH);
  return template;
}

/** db.json parsed as plain JSON (the oracle of the export round trip and of spot checks). */
export function dbJson(): RetailDbJson {
  return JSON.parse(readFileSync(DB_JSON_PATH, 'utf8')) as RetailDbJson;
}

export const CONTEXT: ToolContext = { signal: new AbortController().signal, heartbeat: () => undefined };

/** A call as the runner dispatches it; the key is `<runId>/<seq>`. */
export function makeCall(
  tool: string,
  args: Record<string, unknown>,
  seq = 1,
  runId = 'run-retail',
): ToolCall {
  return { runId, seq, tool, version: 'v1', args, idempotencyKey: `${runId}/${seq}` };
}

let nextSeq = 1;

/** Run one retail tool on `db` under a fresh key. */
export function runTool(db: RetailDb, tool: string, args: Record<string, unknown>): Promise<ToolExecution> {
  const executor = createRetailExecutors(db)[tool];
  if (executor === undefined) throw new Error(`no tool ${tool}`);
  return executor.execute(CONTEXT, makeCall(tool, args, nextSeq++));
}

/** The failure of a call expected to fail: its code and message (fails the test if the call succeeds). */
export async function failureOf(
  db: RetailDb,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string }> {
  try {
    await runTool(db, tool, args);
  } catch (err) {
    const e = err as { code?: string; message: string };
    return { code: e.code ?? 'not_a_harness_error', message: e.message };
  }
  throw new Error(`${tool} succeeded but was expected to fail`);
}
