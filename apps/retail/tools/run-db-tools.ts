import type { ToolContext, ToolCall, ToolExecutor } from '../../../src/index.js';
import type { RetailDb } from '../db/retail-db.js';
import { retailToolDefinitions } from '../workflow/retail-definitions.js';
import { createRetailExecutors, type RetailToolRegistrar } from './retail-tools.js';

/**
 * The retail databases of the runs a worker serves, by run id (the workflow id): an evaluation gives
 * every task's run its own fresh copy, and one worker serves them all. A tool call of a run without a
 * database fails (a plain error: a read is attempted again, a write's outcome is settled as usual).
 */
export class RetailRunDbs {
  readonly #dbs = new Map<string, RetailDb>();
  readonly #executors = new WeakMap<RetailDb, Record<string, ToolExecutor>>();

  /** Bind `db` to the run `runId` (replacing any earlier binding). */
  bind(runId: string, db: RetailDb): void {
    this.#dbs.set(runId, db);
  }

  /** Forget the run's database (the caller closes it). */
  release(runId: string): void {
    this.#dbs.delete(runId);
  }

  /** The run's database, if bound. */
  get(runId: string): RetailDb | undefined {
    return this.#dbs.get(runId);
  }

  /**
   * The executor of `tool` over the database of `runId`.
   *
   * @throws Error when the run has no database or the tool is not a retail tool.
   */
  executor(runId: string, tool: string): ToolExecutor {
    const db = this.#dbs.get(runId);
    if (db === undefined) throw new Error(`no retail database is bound to run ${runId}`);
    let executors = this.#executors.get(db);
    if (executors === undefined) {
      executors = createRetailExecutors(db);
      this.#executors.set(db, executors);
    }
    const executor = executors[tool];
    if (executor === undefined) throw new Error(`${tool} is not a retail tool`);
    return executor;
  }
}

/** Fault drills of the per-run tools (the evaluation's `fault` variant only). */
export interface RetailToolDrills {
  /** Called after a write's effect committed, before its result is returned (e.g. to crash the worker). */
  readonly afterWrite?: (call: ToolCall) => void;
}

/** An executor of `tool` that runs the executor over the calling run's database. */
function routedExecutor(
  dbs: RetailRunDbs,
  tool: string,
  reconciles: boolean,
  drills: RetailToolDrills,
): ToolExecutor {
  // Async: a run without a database rejects, as an executor's failure does (never a synchronous throw).
  const execute = async (ctx: ToolContext, call: ToolCall) => {
    const result = await dbs.executor(call.runId, tool).execute(ctx, call);
    if (reconciles) drills.afterWrite?.(call);
    return result;
  };
  if (!reconciles) return { execute };
  return {
    execute,
    reconcile: async (ctx, call) => {
      const inner = dbs.executor(call.runId, tool);
      if (!inner.reconcile) throw new Error(`${tool} has no reconciler`);
      return inner.reconcile(ctx, call);
    },
  };
}

/**
 * Register the sixteen retail tools with executors that resolve the database by the call's run id
 * (the writes keep their reconcilers).
 *
 * @throws whatever `registry.register` throws.
 */
export function registerRetailRunTools(
  registry: RetailToolRegistrar,
  dbs: RetailRunDbs,
  drills: RetailToolDrills = {},
): void {
  for (const definition of retailToolDefinitions()) {
    registry.register(
      definition,
      routedExecutor(dbs, definition.name, definition.effect === 'write', drills),
    );
  }
}
