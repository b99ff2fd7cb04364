/**
 * An API refusal: an HTTP status and a reason code, sent as `{ error: { code, message, ...details } }`
 * (the one error shape of the service, `ErrorSchema` in api-schemas.ts). `details` are extra fields of
 * `error` (a decision the run refused: `actionId`, `principal`, `approvals`); they never hold a secret.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait before retrying (429). */
    readonly retryAfterSeconds?: number,
    /** More fields of the body's `error` object. */
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
