import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { RetailError, RetailErrorCode } from '../domain/retail-errors.js';

/** One gold action of a task: a tool call the benchmark replays to build the expected database. */
export interface RetailGoldAction {
  readonly action_id: string;
  /** The benchmark's tool name, e.g. `cancel_pending_order`. */
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** `assistant` (the default) or `user`; the retail domain has only assistant tools. */
  readonly requestor?: string;
}

/**
 * A τ²-bench retail task, as far as the database criterion needs it; every other field (the user
 * scenario, communicate_info, nl_assertions, ...) is kept as it is in `raw`.
 */
export interface RetailTask {
  readonly id: string;
  readonly actions: readonly RetailGoldAction[];
  readonly rewardBasis: readonly string[];
  readonly raw: Record<string, unknown>;
}

const ActionSchema = z.looseObject({
  action_id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  requestor: z.string().optional(),
});

const InitialStateSchema = z
  .looseObject({
    initialization_data: z.unknown().optional(),
    initialization_actions: z.unknown().optional(),
    message_history: z.unknown().optional(),
  })
  .nullable()
  .optional();

const TaskSchema = z.looseObject({
  id: z.string(),
  initial_state: InitialStateSchema,
  evaluation_criteria: z
    .looseObject({
      actions: z.array(ActionSchema).nullable().optional(),
      reward_basis: z.array(z.string()).optional(),
    })
    .nullable()
    .optional(),
});

/**
 * Check a parsed tasks file (a JSON array of tasks in τ²-bench's format, e.g. `tasks-train.json`).
 * Tasks without evaluation criteria or actions have no gold actions.
 *
 * @throws RetailError `retail.tasks_invalid` for a value that is not such an array, or a task with an
 *   `initial_state` that sets data or runs actions (not supported yet: its expected database would
 *   not start from `db.json`).
 */
export function parseRetailTasks(value: unknown): RetailTask[] {
  const parsed = z.array(TaskSchema).safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new RetailError(RetailErrorCode.tasksInvalid, `not a retail tasks file: ${issues.join('; ')}`, {
      issues,
    });
  }
  return parsed.data.map((task) => {
    const state = task.initial_state;
    if (state && (state.initialization_data != null || state.initialization_actions != null)) {
      throw new RetailError(RetailErrorCode.tasksInvalid, `task ${task.id}: initial_state is not supported`, {
        taskId: task.id,
      });
    }
    return {
      id: task.id,
      actions: (task.evaluation_criteria?.actions ?? []).map((a) => ({
        action_id: a.action_id,
        name: a.name,
        arguments: a.arguments,
        ...(a.requestor === undefined ? {} : { requestor: a.requestor }),
      })),
      rewardBasis: task.evaluation_criteria?.reward_basis ?? [],
      raw: task,
    };
  });
}

/**
 * Read and check a tasks file.
 *
 * @throws the file system's error, `SyntaxError` for text that is not JSON, or `retail.tasks_invalid`.
 */
export function readRetailTasksFile(path: string): RetailTask[] {
  return parseRetailTasks(JSON.parse(readFileSync(path, 'utf8')) as unknown);
}
