import { HarnessError, ToolRegistry } from '../../../src/index.js';
import type { ToolCall, ToolContext, ToolExecutor } from '../../../src/index.js';
import type { RetailDb } from '../db/retail-db.js';
import { exportRetailDb } from '../db/retail-export.js';
import type { RetailDbTemplate } from '../db/retail-template.js';
import type { RetailDbJson } from '../db/retail-types.js';
import { createRetailExecutors } from '../tools/retail-tools.js';
import { retailToolDefinitions } from '../workflow/retail-definitions.js';
import { RETAIL_TOOL_VERSION, retailToolName } from '../workflow/retail-tool-names.js';
import type { RetailTask } from './retail-tasks.js';

/** What one gold action did. */
export type GoldActionOutcome =
  | {
      readonly actionId: string;
      readonly tool: string;
      readonly ok: true;
      readonly output: Record<string, unknown>;
    }
  | {
      readonly actionId: string;
      readonly tool: string;
      readonly ok: false;
      /** `retail.tool_error` (the benchmark's own error), `tool.invalid_arguments`, `tool.unknown`, ... */
      readonly code: string;
      readonly message: string;
    };

/** The outcomes of one task's gold actions, in order, and the failed ones. */
export interface GoldResult {
  readonly taskId: string;
  readonly outcomes: readonly GoldActionOutcome[];
  readonly failures: readonly Extract<GoldActionOutcome, { ok: false }>[];
}

const NO_CONTEXT: ToolContext = { signal: new AbortController().signal, heartbeat: () => undefined };

/** The idempotency key of gold action `seq` of a task: `<runId>/<seq>` with run id `gold-<task id>`. */
export function goldCall(
  task: RetailTask,
  seq: number,
  tool: string,
  args: Record<string, unknown>,
): ToolCall {
  const runId = `gold-${task.id}`;
  return { runId, seq, tool, version: RETAIL_TOOL_VERSION, args, idempotencyKey: `${runId}/${seq}` };
}

/**
 * Apply a task's gold actions to `db` in order, directly (no Temporal), through a tool registry
 * holding the retail tools bound to `db`: each call's arguments are validated against its definition,
 * then its executor runs under the key of {@link goldCall}. As in τ²-bench, an action that fails is
 * reported and the next one still runs. Applying the same task again to the same database repeats
 * the same keys: every write returns its first answer and changes nothing.
 *
 * @returns every action's outcome; failures are business errors (`retail.tool_error`, the benchmark's
 *   message), argument rejections (`tool.invalid_arguments`) or unknown tools (`tool.unknown`).
 * @throws anything that is not a `HarnessError` (a SQLite failure) unchanged.
 */
export function applyGoldActions(db: RetailDb, task: RetailTask): Promise<GoldResult> {
  return applyGoldActionsWith(createRetailExecutors(db), task);
}

/**
 * {@link applyGoldActions} through any set of retail executors by tool name (e.g. the PostgreSQL
 * ones of `createRetailPgExecutors`).
 *
 * @throws Error when a retail definition has no executor; anything not a `HarnessError` (a database
 *   failure) unchanged.
 */
export async function applyGoldActionsWith(
  executors: Readonly<Record<string, ToolExecutor>>,
  task: RetailTask,
): Promise<GoldResult> {
  const registry = new ToolRegistry();
  for (const definition of retailToolDefinitions()) {
    const executor = executors[definition.name];
    if (executor === undefined) throw new Error(`no executor for ${definition.name}`);
    registry.register(definition, executor);
  }
  const outcomes: GoldActionOutcome[] = [];
  for (const [i, action] of task.actions.entries()) {
    const tool = retailToolName(action.name);
    const checked = registry.validateCall(tool, RETAIL_TOOL_VERSION, action.arguments);
    if (!checked.ok) {
      outcomes.push({
        actionId: action.action_id,
        tool,
        ok: false,
        code: checked.rejection.code,
        message: checked.rejection.message,
      });
      continue;
    }
    const { executor } = registry.get(tool, RETAIL_TOOL_VERSION);
    try {
      const execution = await executor.execute(NO_CONTEXT, goldCall(task, i + 1, tool, action.arguments));
      outcomes.push({ actionId: action.action_id, tool, ok: true, output: execution.output });
    } catch (err) {
      if (!(err instanceof HarnessError)) throw err;
      outcomes.push({ actionId: action.action_id, tool, ok: false, code: err.code, message: err.message });
    }
  }
  const failures = outcomes.filter((o): o is Extract<GoldActionOutcome, { ok: false }> => !o.ok);
  return { taskId: task.id, outcomes, failures };
}

/**
 * The database a task expects: its gold actions applied to a fresh copy of `template`, exported in
 * `db.json`'s shape (the copy is closed afterwards).
 *
 * @throws as {@link applyGoldActions}.
 */
export async function expectedRetailDb(
  template: RetailDbTemplate,
  task: RetailTask,
): Promise<{ readonly result: GoldResult; readonly expected: RetailDbJson }> {
  const db = template.fresh();
  try {
    const result = await applyGoldActions(db, task);
    return { result, expected: exportRetailDb(db) };
  } finally {
    db.close();
  }
}
