/**
 * The one error taxonomy of the harness. Every failure the harness raises on purpose is a
 * {@link HarnessError} with a stable, dotted `code` (for example `registry.conflict`). Codes are part
 * of the public contract: they are written to durable audit records and tests match on them, so a
 * code is never renamed once released.
 */
export class HarnessError extends Error {
  /** Stable machine-readable code, `area.reason`. */
  readonly code: string;
  /** Structured, bounded details a person or a model can read. Never contains secrets. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** True when `err` is a {@link HarnessError}, optionally with the given code. */
export function isHarnessError(err: unknown, code?: string): err is HarnessError {
  return err instanceof HarnessError && (code === undefined || err.code === code);
}
