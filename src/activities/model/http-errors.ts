import { ModelBlockedError, ModelError } from './errors.js';
import type { ModelErrorCode } from './errors.js';

/** Minimal view of response headers (a fetch `Headers` or a plain record). */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined>;

function header(headers: HeaderSource | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (typeof headers.get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const rec = headers as Record<string, string | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : rec[key];
}

/**
 * The delay the provider asked for, in milliseconds: `retry-after-ms` first, then `Retry-After` as
 * seconds or as an HTTP date (relative to `nowMs`). Undefined when absent or unparseable; never negative.
 */
export function parseRetryAfterMs(
  headers: HeaderSource | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.round(n);
  }
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs >= 0 ? Math.round(secs * 1000) : undefined;
  const date = Date.parse(ra);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

const KEY_PATTERN = /\b(sk-[A-Za-z0-9_*-]{4,}|sk-ant-[A-Za-z0-9_*-]{4,}|Bearer\s+\S+)/g;

/** Removes anything that looks like an API key and bounds the length of a provider message. */
export function redactProviderMessage(msg: string): string {
  const redacted = msg.replace(KEY_PATTERN, '[redacted]');
  return redacted.length > 500 ? `${redacted.slice(0, 500)}…` : redacted;
}

/**
 * Maps an HTTP error status from a provider to a {@link ModelError} with an actionable message.
 * `providerMessage` is redacted; for 401 it is dropped entirely (it may echo part of the key).
 * A 400 whose provider code is `content_filter` becomes a {@link ModelBlockedError}.
 */
export function modelErrorFromHttp(args: {
  provider: string;
  status: number;
  headers?: HeaderSource;
  providerMessage?: string;
  providerCode?: string;
  nowMs?: number;
}): ModelError {
  const { provider, status } = args;
  const detail = args.providerMessage ? `: ${redactProviderMessage(args.providerMessage)}` : '';
  const details = { provider, status };
  if (args.providerCode === 'content_filter') {
    return new ModelBlockedError(
      'content_filter',
      `${provider} filtered the request (HTTP ${status})${detail}`,
      details,
    );
  }
  const retryAfterMs = parseRetryAfterMs(args.headers, args.nowMs);
  const make = (code: ModelErrorCode, message: string): ModelError =>
    new ModelError(code, message, { details, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  if (status === 429)
    return make('model.rate_limited', `${provider} rate limited the call (HTTP 429)${detail}`);
  if (status === 408) return make('model.timeout', `${provider} timed out the request (HTTP 408)${detail}`);
  if (status >= 500)
    return make('model.provider_unavailable', `${provider} is unavailable (HTTP ${status})${detail}`);
  if (status === 401) {
    return make(
      'model.unauthorized',
      `${provider} rejected the credentials (HTTP 401): check the API key in OPENAI_API_KEY / ANTHROPIC_API_KEY`,
    );
  }
  if (status === 403) {
    return make(
      'model.forbidden',
      `${provider} denied access (HTTP 403): the API key has no access to this model or endpoint${detail}`,
    );
  }
  if (status === 404) {
    return make(
      'model.not_found',
      `${provider} answered 404: check the base URL (OPENAI_BASE_URL / ANTHROPIC_BASE_URL) and the model name (HARNESS_MODEL)${detail}`,
    );
  }
  if (status === 400 || status === 413 || status === 422) {
    return make('model.bad_request', `${provider} rejected the request as invalid (HTTP ${status})${detail}`);
  }
  return make('model.http_error', `${provider} answered HTTP ${status}${detail}`);
}
