import { HarnessError } from '../../contract/errors.js';

/**
 * Every `model.*` error code and whether a Temporal retry of the model activity can help.
 * This table is the one place that says which model failures are terminal.
 */
export const MODEL_ERROR_CODES = {
  /** HTTP 429. Honour `retryAfterMs`. */
  'model.rate_limited': { retryable: true },
  /** HTTP 5xx (and 529 overloaded). */
  'model.provider_unavailable': { retryable: true },
  /** Request or stream timed out (HTTP 408, SDK timeout). */
  'model.timeout': { retryable: true },
  /** Connection refused/reset, or the stream ended before the provider finished. No usage is counted. */
  'model.connection_lost': { retryable: true },
  /** HTTP 400/413/422: the request is wrong; resending it cannot help. */
  'model.bad_request': { retryable: false },
  /** HTTP 401: the API key is missing, wrong or revoked. */
  'model.unauthorized': { retryable: false },
  /** HTTP 403: the key lacks access to the model or the endpoint. */
  'model.forbidden': { retryable: false },
  /** HTTP 404: wrong base URL or model name. */
  'model.not_found': { retryable: false },
  /** Any other HTTP 4xx. */
  'model.http_error': { retryable: false },
  /** The provider filtered or refused the output. */
  'model.blocked': { retryable: false },
  /** The caller aborted the call (activity cancelled). */
  'model.cancelled': { retryable: false },
  /** The provider sent an event or chunk type this adapter does not know: fail closed. */
  'model.unknown_event': { retryable: false },
  /** The model named a tool that was not offered in the request. */
  'model.unknown_tool': { retryable: false },
  /** Tool-call arguments are not a JSON object. */
  'model.invalid_tool_arguments': { retryable: false },
  /** The final text does not satisfy the request's `outputSchema`. */
  'model.output_invalid': { retryable: false },
  /** The provider completed without reporting token usage, so cost cannot be counted. */
  'model.usage_missing': { retryable: false },
  /** The request's model route has no price in the provider's price table. */
  'model.route_unpriced': { retryable: false },
  /** The request failed schema validation or cannot be expressed for this provider. */
  'model.invalid_request': { retryable: false },
  /** The scripted provider has no entry matching the request. */
  'model.script_no_match': { retryable: false },
  /** The script file is not valid. */
  'model.script_invalid': { retryable: false },
  /** The model routes file cannot be read, is not JSON/YAML, or does not match its schema. */
  'model.routes_invalid': { retryable: false },
  /** Provider configuration (environment) is missing or invalid. */
  'model.config_invalid': { retryable: false },
  /** An unexpected failure inside the adapter or SDK. */
  'model.provider_error': { retryable: false },
} as const satisfies Record<string, { retryable: boolean }>;

export type ModelErrorCode = keyof typeof MODEL_ERROR_CODES;

/**
 * A failed model call. `retryable` says whether the activity may be retried; `retryAfterMs`, when
 * set, is the delay the provider asked for (from `retry-after-ms` or `Retry-After`). Messages and
 * details never contain API keys.
 */
export class ModelError extends HarnessError {
  override readonly code: ModelErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(
    code: ModelErrorCode,
    message: string,
    opts: { retryAfterMs?: number; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, opts.details ?? {});
    this.code = code;
    this.retryable = MODEL_ERROR_CODES[code].retryable;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    if (opts.cause !== undefined) this.cause = opts.cause;
  }
}

/** The provider filtered or refused the output (`model.blocked`, never retryable). */
export class ModelBlockedError extends ModelError {
  readonly reason: 'content_filter' | 'refusal';

  constructor(reason: 'content_filter' | 'refusal', message: string, details: Record<string, unknown> = {}) {
    super('model.blocked', message, { details: { ...details, reason } });
    this.reason = reason;
  }
}

/** True when `err` is a {@link ModelError}. */
export function isModelError(err: unknown): err is ModelError {
  return err instanceof ModelError;
}
