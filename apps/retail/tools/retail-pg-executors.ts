import type {
  ReconcileOutcome,
  ToolCall,
  ToolContext,
  ToolExecution,
  ToolExecutor,
} from '../../../src/index.js';
import type { RetailDb } from '../db/retail-db.js';
import { diffRows, insertLocalRows, localRows, writeBack } from '../db/pg/retail-pg-rows.js';
import { loadScope, scopeOfCall } from '../db/pg/retail-pg-scope.js';
import type { RetailCallScope } from '../db/pg/retail-pg-scope.js';
import { emptyLocalRetailDb } from '../db/pg/retail-pg-store.js';
import type { RetailPgMode, RetailPgStore } from '../db/pg/retail-pg-store.js';
import { retailToolDefinitions } from '../workflow/retail-definitions.js';
import { createRetailExecutors } from './retail-tools.js';

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/**
 * Run `run` over a local in-memory SQLite copy of the rows of `scope`, inside one PostgreSQL
 * transaction: load (and, for a write, lock) the rows, run, write back every row the run changed
 * (diffed against what was loaded; `applied_writes` included), commit. `run`'s own outcome (an
 * execution, or a rejection such as the benchmark's `retail.tool_error`, whose record must be kept)
 * is settled before the commit and given back after it; a PostgreSQL error rolls everything back and
 * propagates (nothing applied, nothing recorded).
 */
async function overLocalCopy<T>(
  store: RetailPgStore,
  mode: RetailPgMode,
  scope: RetailCallScope,
  run: (local: RetailDb) => Promise<T>,
): Promise<T> {
  const settled = await store.transaction(mode, async (client): Promise<Settled<T>> => {
    const loaded = await loadScope(client, scope, mode === 'write');
    const local = emptyLocalRetailDb();
    try {
      insertLocalRows(local, loaded);
      const outcome = await run(local).then(
        (value): Settled<T> => ({ ok: true, value }),
        (error: unknown): Settled<T> => ({ ok: false, error }),
      );
      if (mode === 'write') await writeBack(client, diffRows(loaded, localRows(local)));
      return outcome;
    } finally {
      local.close();
    }
  });
  if (settled.ok) return settled.value;
  throw settled.error;
}

/** The SQLite executor of `tool` over `local` (the unchanged retail executors). */
function localExecutor(local: RetailDb, tool: string): ToolExecutor {
  const executor = createRetailExecutors(local)[tool];
  if (executor === undefined) throw new Error(`no retail executor for ${tool}`);
  return executor;
}

function readOverPg(store: RetailPgStore, tool: string): ToolExecutor {
  return {
    execute: (ctx: ToolContext, call: ToolCall): Promise<ToolExecution> =>
      overLocalCopy(store, 'read', scopeOfCall(tool, call.args, undefined), (local) =>
        localExecutor(local, tool).execute(ctx, call),
      ),
  };
}

function writeOverPg(store: RetailPgStore, tool: string): ToolExecutor {
  return {
    execute: (ctx: ToolContext, call: ToolCall): Promise<ToolExecution> =>
      overLocalCopy(store, 'write', scopeOfCall(tool, call.args, call.idempotencyKey), (local) =>
        localExecutor(local, tool).execute(ctx, call),
      ),
    reconcile: (ctx: ToolContext, call: ToolCall): Promise<ReconcileOutcome> =>
      overLocalCopy(store, 'read', { products: false, writeKey: call.idempotencyKey }, (local) => {
        const bound = localExecutor(local, tool);
        if (bound.reconcile === undefined) throw new Error(`retail write ${tool} has no reconcile`);
        return bound.reconcile(ctx, call);
      }),
  };
}

/**
 * The executors of the sixteen retail tools over a PostgreSQL store, by harness tool name: the same
 * outputs, artifacts, business errors and idempotency as `createRetailExecutors` over SQLite, because
 * each call runs those very executors (the benchmark's logic, unchanged) over an in-memory SQLite
 * copy of the rows the call can read, inside one PostgreSQL transaction.
 *
 * - read: one `REPEATABLE READ READ ONLY` transaction (a consistent view of the order, user, zip or
 *   email users, or catalogue the call names). Fails as over SQLite, or with a PostgreSQL error
 *   (nothing changed; the activity retries a read).
 * - write: one READ COMMITTED transaction holding an advisory lock on the idempotency key and
 *   `FOR UPDATE` locks on the order and user rows; the key's `applied_writes` row is loaded, so a
 *   repeat returns the first answer (output or business error) and changes nothing; the effect and
 *   its record are written back and committed together. A PostgreSQL error (lost connection,
 *   commit failure) means nothing was committed, or, if the connection died during `COMMIT`, an
 *   unknown outcome: `reconcile` answers it.
 * - reconcile: read-only look-up of the key's record in PostgreSQL: `succeeded` with the recorded
 *   output, `not_applied` (nothing recorded, or a recorded business error), `unknown` (recorded for
 *   another call). PostgreSQL errors propagate.
 */
export function createRetailPgExecutors(store: RetailPgStore): Record<string, ToolExecutor> {
  const executors: Record<string, ToolExecutor> = {};
  for (const definition of retailToolDefinitions()) {
    executors[definition.name] =
      definition.effect === 'write'
        ? writeOverPg(store, definition.name)
        : readOverPg(store, definition.name);
  }
  return executors;
}
