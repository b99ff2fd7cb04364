import { HarnessError } from '../../../src/index.js';

/**
 * Stable error codes of the retail app. All are terminal: none is an effect whose outcome is unknown.
 */
export const RetailErrorCode = {
  /**
   * The benchmark's own `ValueError` (or another Python exception a tool raises, e.g. from
   * `calculate`): a business failure of the call, nothing changed. The message is the benchmark's
   * text exactly; τ²-bench shows it to the agent as `Error: <message>`.
   */
  toolError: 'retail.tool_error',
  /** Arguments failed the executor's own boundary check (the registry checks the schema first). */
  invalidArguments: 'retail.invalid_arguments',
  /** An idempotency key already recorded for another tool or other arguments: nothing written. */
  idempotencyKeyReused: 'retail.idempotency_key_reused',
  /** A `db.json` that does not have the benchmark's shape or breaks a constraint: nothing loaded. */
  dbInvalid: 'retail.db_invalid',
  /** A tasks file that does not have the benchmark's shape. */
  tasksInvalid: 'retail.tasks_invalid',
  /** A retail database URL that names no supported backend (`RETAIL_DB_URL`): nothing opened. */
  dbUrlInvalid: 'retail.db_url_invalid',
} as const;
export type RetailErrorCode = (typeof RetailErrorCode)[keyof typeof RetailErrorCode];

/** A failure of the retail app (database, tools, tasks). */
export class RetailError extends HarnessError {
  declare readonly code: RetailErrorCode;

  constructor(code: RetailErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}

/**
 * `retail.tool_error` carrying the benchmark's exact message. `pythonType` names the exception class
 * the benchmark raises (`ValueError` for every domain rule; `ZeroDivisionError` etc. from `calculate`); `extra` adds details (e.g. `replayed`).
 */
export function toolError(
  message: string,
  pythonType = 'ValueError',
  extra: Record<string, unknown> = {},
): RetailError {
  return new RetailError(RetailErrorCode.toolError, message, { ...extra, error: message, pythonType });
}

/** True for a `retail.tool_error`. */
export function isToolError(err: unknown): err is RetailError {
  return err instanceof RetailError && err.code === RetailErrorCode.toolError;
}
