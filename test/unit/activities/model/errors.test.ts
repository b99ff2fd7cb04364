import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { HarnessError } from '../../../../src/contract/errors.js';
import { MODEL_ERROR_CODES, ModelBlockedError, ModelError } from '../../../../src/activities/model/errors.js';
import {
  modelErrorFromHttp,
  parseRetryAfterMs,
  redactProviderMessage,
} from '../../../../src/activities/model/http-errors.js';
import { toApplicationFailure } from '../../../../src/activities/model/to-application-failure.js';

describe('Retry-After parsing', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads seconds, HTTP dates and retry-after-ms (which wins)', () => {
    expect(parseRetryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(parseRetryAfterMs({ 'Retry-After': '0.5' }, now)).toBe(500);
    expect(parseRetryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }, now)).toBe(10_000);
    expect(parseRetryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, now)).toBe(0);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfterMs({}, now)).toBeUndefined();
  });
});

describe('HTTP status classification', () => {
  it.each([
    [429, 'model.rate_limited', true],
    [500, 'model.provider_unavailable', true],
    [503, 'model.provider_unavailable', true],
    [408, 'model.timeout', true],
    [400, 'model.bad_request', false],
    [401, 'model.unauthorized', false],
    [403, 'model.forbidden', false],
    [404, 'model.not_found', false],
    [409, 'model.http_error', false],
  ])('%i -> %s', (status, code, retryable) => {
    const err = modelErrorFromHttp({ provider: 'openai', status, providerMessage: 'x' });
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toBeInstanceOf(HarnessError);
    expect(err.code).toBe(code);
    expect(err.retryable).toBe(retryable);
  });

  it('never repeats a key from the provider message', () => {
    const err = modelErrorFromHttp({
      provider: 'openai',
      status: 403,
      providerMessage: 'key sk-proj-abcdef123456 lacks scope',
    });
    expect(err.message).not.toContain('sk-proj-abcdef123456');
    expect(redactProviderMessage('Bearer abc.def token')).toBe('[redacted] token');
  });

  it('turns a 400 content_filter into a blocked error', () => {
    const err = modelErrorFromHttp({
      provider: 'openai',
      status: 400,
      providerCode: 'content_filter',
      providerMessage: 'filtered',
    });
    expect(err).toBeInstanceOf(ModelBlockedError);
    expect(err.retryable).toBe(false);
  });

  it('lists every code with a retryable flag in one table', () => {
    expect(
      Object.entries(MODEL_ERROR_CODES)
        .filter(([, v]) => v.retryable)
        .map(([k]) => k)
        .sort(),
    ).toEqual(
      ['model.connection_lost', 'model.provider_unavailable', 'model.rate_limited', 'model.timeout'].sort(),
    );
  });
});

describe('toApplicationFailure', () => {
  it('carries type, retryability and the next retry delay', () => {
    const f = toApplicationFailure(
      new ModelError('model.rate_limited', 'slow down', {
        retryAfterMs: 3000,
        details: { provider: 'openai' },
      }),
    );
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect(f).toMatchObject({
      type: 'model.rate_limited',
      nonRetryable: false,
      message: 'slow down',
      details: [{ provider: 'openai' }],
    });
    expect(f.nextRetryDelay).toBe(3000);
  });

  it('makes non-retryable codes non-retryable and wraps foreign errors', () => {
    expect(toApplicationFailure(new ModelBlockedError('content_filter', 'blocked'))).toMatchObject({
      type: 'model.blocked',
      nonRetryable: true,
    });
    const f = toApplicationFailure(new Error('boom with sk-abcdef1234567'));
    expect(f).toMatchObject({ type: 'model.provider_error', nonRetryable: true });
    expect(f.message).not.toContain('sk-abcdef1234567');
    expect(f.nextRetryDelay).toBeUndefined();
  });
});
