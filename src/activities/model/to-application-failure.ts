import { ApplicationFailure } from '@temporalio/common';
import { ModelError, isModelError } from './errors.js';
import { redactProviderMessage } from './http-errors.js';

/**
 * Converts a model failure into the `ApplicationFailure` a model activity throws: `type` is the
 * stable `model.*` code, `nonRetryable` is `!retryable`, `nextRetryDelay` is the provider's
 * `retryAfterMs`, and the only detail is the error's bounded, secret-free `details`. The SDK
 * error is deliberately not attached as `cause` (its message may echo request data).
 * Anything that is not a {@link ModelError} becomes a non-retryable `model.provider_error`.
 */
export function toApplicationFailure(err: unknown): ApplicationFailure {
  const modelErr = isModelError(err)
    ? err
    : new ModelError(
        'model.provider_error',
        redactProviderMessage(err instanceof Error ? err.message : String(err)),
      );
  return ApplicationFailure.create({
    type: modelErr.code,
    message: modelErr.message,
    nonRetryable: !modelErr.retryable,
    details: [modelErr.details],
    ...(modelErr.retryAfterMs !== undefined ? { nextRetryDelay: modelErr.retryAfterMs } : {}),
  });
}
