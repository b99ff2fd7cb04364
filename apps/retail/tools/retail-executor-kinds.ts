import type { z } from 'zod';
import { sha256Digest } from '../../../src/index.js';
import type { ReconcileOutcome, ToolCall, ToolExecution, ToolExecutor } from '../../../src/index.js';
import { applyWriteOnce, recordedWrite } from '../db/applied-writes.js';
import type { RetailDb } from '../db/retail-db.js';
import { toolError } from '../domain/retail-errors.js';
import { parseRetailArgs } from './retail-args.js';

/**
 * The output of a retail tool: a tool returning an object (an order, a user, a product) has that
 * object as output; one returning a string (a user id, a calculation, `Transfer successful`) has
 * `{ result: string }`.
 */
export function retailOutput(value: unknown): Record<string, unknown> {
  return typeof value === 'string' ? { result: value } : { ...(value as Record<string, unknown>) };
}

/**
 * What a retail tool answers: its output, and one `observed` artifact citing it by digest (the
 * evidence a verified fact stands on; the routed profile records facts citing it). Deterministic per
 * call, so a write's repeat under its key gives the same artifact.
 */
export function retailExecution(call: ToolCall, output: Readonly<Record<string, unknown>>): ToolExecution {
  const id = `${call.runId}/${call.seq}/retail.result`;
  const artifact = {
    id: id.length <= 200 ? id : `retail.result/${sha256Digest(id)}`,
    type: 'retail.result',
    schemaVersion: '1',
    provenance: 'observed' as const,
    ref: { uri: `invocation://${call.runId}/${call.seq}`, digest: sha256Digest(output) },
  };
  return { output, artifacts: [artifact] };
}

/**
 * The executor of a read tool: parse the arguments, run the benchmark's read, return its output.
 * Fails with `retail.invalid_arguments` or the benchmark's `retail.tool_error`; SQLite errors
 * propagate (a read is retried by its activity).
 */
export function readExecutor<A>(
  db: RetailDb,
  schema: z.ZodType<A>,
  run: (db: RetailDb, args: A) => unknown,
): ToolExecutor {
  return {
    execute(_ctx, call): Promise<ToolExecution> {
      try {
        const args = parseRetailArgs(schema, call);
        return Promise.resolve(retailExecution(call, retailOutput(run(db, args))));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}

/** The identity a write records with its key: the tool and the digest of its parsed arguments. */
function identityOf<A>(tool: string, args: A): { tool: string; argsDigest: string } {
  return { tool, argsDigest: sha256Digest(args) };
}

/**
 * The executor of a write tool, deduplicated by `call.idempotencyKey` (declare `idempotentByKey`).
 *
 * execute: parse the arguments, then in one SQLite transaction either return what the key already
 * recorded (changing nothing) or run the benchmark's write and record its output or its business
 * error under the key with the effect. Output: the changed order or user, as the benchmark returns
 * it. Fails with `retail.invalid_arguments` (nothing run), `retail.idempotency_key_reused` (the key
 * names another call; nothing written), the benchmark's `retail.tool_error` (first time or repeat;
 * nothing changed), or a SQLite error (nothing committed: the transaction rolled back).
 *
 * reconcile: read-only look-up by the key: output recorded for these arguments -> `succeeded` with
 * the same execution; nothing recorded, or a recorded business error (no effect; another attempt
 * answers the same error) -> `not_applied`; recorded for another call -> `unknown`. SQLite errors
 * propagate (a person decides).
 */
export function writeExecutor<A>(
  db: RetailDb,
  tool: string,
  schema: z.ZodType<A>,
  run: (db: RetailDb, args: A) => unknown,
): ToolExecutor {
  return {
    execute(_ctx, call): Promise<ToolExecution> {
      try {
        const args = parseRetailArgs(schema, call);
        const { write, replayed } = applyWriteOnce(db, call.idempotencyKey, identityOf(tool, args), () =>
          retailOutput(run(db, args)),
        );
        if (write.outcome === 'failed') {
          return Promise.reject(toolError(write.message, write.pythonType, { replayed }));
        }
        return Promise.resolve(retailExecution(call, write.output));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
    reconcile(_ctx, call: ToolCall): Promise<ReconcileOutcome> {
      try {
        const recorded = recordedWrite(db, call.idempotencyKey);
        if (recorded === undefined) return Promise.resolve({ outcome: 'not_applied' });
        const parsed = schema.safeParse(call.args);
        if (
          !parsed.success ||
          recorded.tool !== tool ||
          recorded.argsDigest !== identityOf(tool, parsed.data).argsDigest
        ) {
          return Promise.resolve({ outcome: 'unknown' });
        }
        if (recorded.outcome === 'failed') return Promise.resolve({ outcome: 'not_applied' });
        return Promise.resolve({ outcome: 'succeeded', execution: retailExecution(call, recorded.output) });
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}
