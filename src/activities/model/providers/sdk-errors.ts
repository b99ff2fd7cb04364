import { ModelError } from '../errors.js';
import { modelErrorFromHttp } from '../http-errors.js';
import type { HeaderSource } from '../http-errors.js';

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && chain.length < 6) {
    chain.push(cur);
    cur = (cur as { cause?: unknown }).cause;
  }
  return chain;
}

/** Stream error events without an HTTP status, classified by the provider's error type. */
function fromStreamErrorType(provider: string, type: string | undefined, message: string): ModelError {
  const details = { provider, errorType: type ?? null };
  const msg = `${provider} reported an error mid-stream (${type ?? 'unknown'}): ${message}`;
  if (type === 'rate_limit_error') return new ModelError('model.rate_limited', msg, { details });
  if (type === 'invalid_request_error') return new ModelError('model.bad_request', msg, { details });
  if (type === 'authentication_error')
    return new ModelError(
      'model.unauthorized',
      `${provider} rejected the credentials: check the API key in OPENAI_API_KEY / ANTHROPIC_API_KEY`,
      { details },
    );
  return new ModelError('model.provider_unavailable', msg, { details });
}

/**
 * Maps an error thrown by the OpenAI or Anthropic SDK (or by fetch underneath) to a ModelError.
 * Both SDKs share the shape `APIError { status, headers, error, type }` and the subclasses
 * `APIConnectionError`, `APIConnectionTimeoutError` and `APIUserAbortError`. Unrecognized errors
 * become `model.provider_error` (non-retryable) so that a bug is never retried silently.
 */
export function mapSdkError(provider: string, err: unknown): ModelError {
  const name = (err as { constructor?: { name?: string } })?.constructor?.name ?? '';
  const e = err as {
    status?: unknown;
    headers?: HeaderSource;
    message?: string;
    error?: unknown;
    type?: string;
    code?: string;
  };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (name === 'APIUserAbortError')
    return new ModelError('model.cancelled', `the ${provider} model call was cancelled`);
  if (name === 'APIConnectionTimeoutError') {
    return new ModelError('model.timeout', `${provider} did not answer in time`, {
      details: { provider },
      cause: err,
    });
  }
  if (name === 'APIConnectionError') {
    return new ModelError('model.connection_lost', `could not reach ${provider}: ${message}`, {
      details: { provider },
      cause: err,
    });
  }
  if (typeof e?.status === 'number') {
    const body = e.error as
      { error?: { message?: string; code?: string }; message?: string; code?: string } | undefined;
    const providerMessage = body?.error?.message ?? body?.message ?? message;
    const providerCode = body?.error?.code ?? body?.code ?? (typeof e.code === 'string' ? e.code : undefined);
    return modelErrorFromHttp({
      provider,
      status: e.status,
      ...(e.headers ? { headers: e.headers } : {}),
      ...(providerMessage ? { providerMessage } : {}),
      ...(providerCode ? { providerCode } : {}),
    });
  }
  if (name === 'APIError') {
    const body = e.error as
      { error?: { type?: string; message?: string }; type?: string; message?: string } | undefined;
    const type = e.type ?? body?.error?.type ?? body?.type;
    return fromStreamErrorType(provider, type, body?.error?.message ?? body?.message ?? message);
  }
  if (err instanceof SyntaxError) {
    return new ModelError('model.unknown_event', `${provider} sent a stream chunk that is not JSON`, {
      details: { provider },
      cause: err,
    });
  }
  for (const link of causeChain(err)) {
    const code = (link as { code?: unknown }).code;
    const msg = (link as { message?: unknown }).message;
    if (
      (typeof code === 'string' && CONNECTION_CODES.has(code)) ||
      msg === 'terminated' ||
      msg === 'fetch failed'
    ) {
      return new ModelError('model.connection_lost', `the connection to ${provider} was lost: ${message}`, {
        details: { provider },
        cause: err,
      });
    }
  }
  return new ModelError('model.provider_error', `unexpected failure in the ${provider} adapter: ${message}`, {
    details: { provider },
    cause: err,
  });
}
