import { describe, expect, it } from 'vitest';
import { ModelBlockedError, ModelError } from '../../../../src/activities/model/errors.js';
import { OpenAiProvider } from '../../../../src/activities/model/providers/openai-provider.js';
import type { ModelEvent } from '../../../../src/activities/model/events.js';
import { jsonError, startFakeServer, startSse, tick, writeSse } from './support/fake-http-server.js';
import { chunk, done, usageChunk } from './support/openai-wire.js';
import { KEY, provider, request, run, server, types, useOpenAiServer } from './support/openai-rig.js';

useOpenAiServer();

describe('OpenAiProvider against a local Chat Completions server', () => {
  it('turns a disconnect mid-stream into a retryable error without counting usage', async () => {
    server.handle(async (_req, res) => {
      startSse(res);
      writeSse(
        res,
        chunk({ content: 'partial' }, null, {
          usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
        }),
      );
      await tick(20);
      res.destroy();
    });
    const { events, result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.connection_lost', retryable: true });
    expect(types(events)).not.toContain('model.usage.completed');
    expect(events.at(-1)).toMatchObject({
      type: 'model.failed',
      code: 'model.connection_lost',
      retryable: true,
    });
  });

  it('treats a stream that ends without a finish reason as lost', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: 'partial' }));
      res.end();
    });
    const { result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.connection_lost', retryable: true });
  });

  it('honours Retry-After on 429 and makes a single HTTP attempt', async () => {
    const before = server.requests.length;
    server.handle((_req, res) =>
      jsonError(res, 429, { error: { message: 'slow down', type: 'rate_limit' } }, { 'retry-after': '3' }),
    );
    const { events, result } = await run(request());
    const err = (await result.catch((e: unknown) => e)) as ModelError;
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ code: 'model.rate_limited', retryable: true, retryAfterMs: 3000 });
    expect(server.requests.length - before).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.rate_limited' });
  });

  it('prefers retry-after-ms', async () => {
    server.handle((_req, res) =>
      jsonError(res, 503, { error: { message: 'busy' } }, { 'retry-after-ms': '1500', 'retry-after': '9' }),
    );
    const { result } = await run(request());
    await expect(result).rejects.toMatchObject({
      code: 'model.provider_unavailable',
      retryable: true,
      retryAfterMs: 1500,
    });
  });

  it('makes 400 non-retryable and 401 actionable without printing the key', async () => {
    server.handle((_req, res) =>
      jsonError(res, 400, {
        error: { message: 'messages[1].content is invalid', type: 'invalid_request_error' },
      }),
    );
    const bad = await run(request());
    await expect(bad.result).rejects.toMatchObject({ code: 'model.bad_request', retryable: false });
    await expect(bad.result).rejects.toThrow(/messages\[1\]\.content is invalid/);

    server.handle((_req, res) =>
      jsonError(res, 401, {
        error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' },
      }),
    );
    const unauth = await run(request());
    const err = (await unauth.result.catch((e: unknown) => e)) as ModelError;
    expect(err).toMatchObject({ code: 'model.unauthorized', retryable: false });
    expect(err.message).toMatch(/OPENAI_API_KEY/);
    expect(JSON.stringify({ m: err.message, d: err.details, ev: unauth.events })).not.toContain(KEY);
  });

  it('reports a content filter as blocked, still counting the billed usage', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: 'I will' }));
      writeSse(res, chunk({}, 'content_filter'));
      writeSse(res, usageChunk(30, 2));
      done(res);
    });
    const { events, result } = await run(request());
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelBlockedError);
    expect(err).toMatchObject({ code: 'model.blocked', retryable: false, reason: 'content_filter' });
    expect(types(events).slice(-2)).toEqual(['model.usage.completed', 'model.blocked']);
    expect(types(events)).not.toContain('model.failed');
  });

  it('fails closed on an unknown chunk type', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: 'a' }));
      writeSse(res, { id: 'x', object: 'chat.completion.surprise', choices: [] });
      writeSse(res, chunk({}, 'stop'));
      writeSse(res, usageChunk(1, 1));
      done(res);
    });
    const { events, result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.unknown_event', retryable: false });
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.unknown_event' });
    expect(types(events)).not.toContain('model.output.completed');
  });

  it('aborts the HTTP stream on cancellation and rejects with model.cancelled', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: 'thinking' }));
    });
    const ac = new AbortController();
    const events: ModelEvent[] = [];
    const result = provider.stream(request(), {
      signal: ac.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'model.text.delta') ac.abort();
      },
    });
    await expect(result).rejects.toMatchObject({ code: 'model.cancelled', retryable: false });
    const seen = await Promise.race([
      server.lastClientAbort().then(() => 'closed'),
      tick(2000).then(() => 'still open'),
    ]);
    expect(seen).toBe('closed');
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.cancelled' });
    expect(types(events)).not.toContain('model.usage.completed');
  });

  it('times out a silent server with a retryable error', async () => {
    const slow = new OpenAiProvider({
      baseURL: `${server.origin}/v1`,
      apiKey: KEY,
      model: 'm',
      prices: { '*': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 } },
      timeoutMs: 200,
    });
    server.handle(() => undefined);
    const events: ModelEvent[] = [];
    await expect(
      slow.stream(request(), { signal: new AbortController().signal, onEvent: (e) => events.push(e) }),
    ).rejects.toMatchObject({
      code: 'model.timeout',
      retryable: true,
    });
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.timeout' });
  });

  it('reports a refused connection as retryable', async () => {
    const other = await startFakeServer();
    const origin = other.origin;
    await other.close();
    const gone = new OpenAiProvider({
      baseURL: `${origin}/v1`,
      apiKey: KEY,
      model: 'm',
      prices: { '*': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 } },
    });
    await expect(
      gone.stream(request(), { signal: new AbortController().signal, onEvent: () => undefined }),
    ).rejects.toMatchObject({
      code: 'model.connection_lost',
      retryable: true,
    });
  });

  it('refuses an unpriced route before any HTTP request', async () => {
    const before = server.requests.length;
    const { events, result } = await run(request({ model: 'unpriced@1' }));
    await expect(result).rejects.toMatchObject({ code: 'model.route_unpriced', retryable: false });
    expect(server.requests.length).toBe(before);
    expect(types(events)).toEqual(['model.started', 'model.failed']);
  });

  it('rejects an invalid request without events', async () => {
    const events: ModelEvent[] = [];
    await expect(
      provider.stream(
        { ...request(), messages: [] },
        { signal: new AbortController().signal, onEvent: (e) => events.push(e) },
      ),
    ).rejects.toMatchObject({
      code: 'model.invalid_request',
      message: expect.stringContaining('messages') as string,
    });
    expect(events).toEqual([]);
  });
});
