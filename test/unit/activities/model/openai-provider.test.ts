import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelBlockedError, ModelError } from '../../../../src/activities/model/errors.js';
import { OpenAiProvider } from '../../../../src/activities/model/providers/openai-provider.js';
import type { ModelEvent } from '../../../../src/activities/model/events.js';
import type { ModelRequest } from '../../../../src/activities/model/types.js';
import { jsonError, startFakeServer, startSse, tick, writeSse } from './support/fake-http-server.js';
import type { FakeServer } from './support/fake-http-server.js';
import { chunk, done, toolDelta, usageChunk } from './support/openai-wire.js';

const KEY = 'sk-test-secret-key-123456';
let server: FakeServer;
let provider: OpenAiProvider;

beforeAll(async () => {
  server = await startFakeServer();
  provider = new OpenAiProvider({
    baseURL: `${server.origin}/v1`,
    apiKey: KEY,
    model: 'gpt-fake-1',
    prices: { 'support-default@1': { inputUsdPerMTok: 2, outputUsdPerMTok: 8 } },
  });
});
afterAll(() => server.close());

const tools = [
  {
    name: 'order.read',
    version: 'v1',
    description: 'Read an order',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
  },
  { name: 'logistics.read', version: 'v2', description: 'Read shipping', parameters: { type: 'object' } },
];

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    callId: 'call-1',
    purpose: 'decide',
    model: 'support-default@1',
    messages: [
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: 'Where is my order A1?' },
    ],
    tools,
    ...over,
  };
}

async function run(
  req: ModelRequest,
  signal = new AbortController().signal,
): Promise<{ events: ModelEvent[]; result: Promise<unknown> }> {
  const events: ModelEvent[] = [];
  const result = provider.stream(req, { signal, onEvent: (e) => events.push(e) });
  await result.catch(() => undefined);
  return { events, result };
}

const types = (events: ModelEvent[]): string[] => events.map((e) => e.type);

describe('OpenAiProvider against a local Chat Completions server', () => {
  it('streams text, requests usage in the stream and counts it once with its cost', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ role: 'assistant', content: '' }));
      writeSse(res, chunk({ content: 'Your order ' }));
      writeSse(res, chunk({ content: 'ships today.' }));
      writeSse(res, chunk({}, 'stop'));
      writeSse(res, usageChunk(1000, 250));
      done(res);
    });
    const events: ModelEvent[] = [];
    const out = await provider.stream(request(), {
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    });
    expect(out.text).toBe('Your order ships today.');
    expect(out.stopReason).toBe('end_turn');
    expect(out.usage).toEqual({ inputTokens: 1000, outputTokens: 250 });
    expect(out.costUsd).toBeCloseTo((1000 * 2 + 250 * 8) / 1e6, 12);
    expect(out.providerModel).toBe('gpt-fake-1');
    expect(types(events)).toEqual([
      'model.started',
      'model.text.delta',
      'model.text.delta',
      'model.output.completed',
      'model.usage.completed',
    ]);
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({
      model: 'gpt-fake-1',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect((sent.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'order_read__v1',
      'logistics_read__v2',
    ]);
  });

  it('assembles fragmented tool-call arguments of interleaved calls and decodes the harness names', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: 'Checking ' }));
      writeSse(res, chunk(toolDelta(0, { id: 'tc_a', name: 'order_read__v1', args: '{"ord' })));
      writeSse(res, chunk(toolDelta(1, { id: 'tc_b', name: 'logistics_read__v2', args: '' })));
      writeSse(res, chunk({ content: 'both.' }));
      writeSse(res, chunk(toolDelta(0, { args: 'erId": "A' })));
      writeSse(res, chunk(toolDelta(1, { args: '{"orderId":"A1"}' })));
      writeSse(res, chunk(toolDelta(0, { args: '1"}' })));
      writeSse(res, chunk({}, 'tool_calls'));
      writeSse(res, usageChunk(50, 20));
      done(res);
    });
    const events: ModelEvent[] = [];
    const out = await provider.stream(request(), {
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    });
    expect(out.text).toBe('Checking both.');
    expect(out.stopReason).toBe('tool_calls');
    expect(out.toolCalls).toEqual([
      {
        id: 'tc_a',
        name: 'order.read',
        version: 'v1',
        args: { orderId: 'A1' },
        rawArguments: '{"orderId": "A1"}',
      },
      {
        id: 'tc_b',
        name: 'logistics.read',
        version: 'v2',
        args: { orderId: 'A1' },
        rawArguments: '{"orderId":"A1"}',
      },
    ]);
    const deltas = events.filter((e) => e.type === 'model.tool_call.delta');
    expect(deltas[0]).toMatchObject({
      index: 0,
      id: 'tc_a',
      name: 'order.read',
      version: 'v1',
      argumentsDelta: '{"ord',
    });
    expect(
      deltas
        .filter((d) => d.index === 0)
        .map((d) => d.argumentsDelta)
        .join(''),
    ).toBe('{"orderId": "A1"}');
  });

  it('counts usage once when the server reports it twice', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(
        res,
        chunk({ content: 'ok' }, null, {
          usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
        }),
      );
      writeSse(res, chunk({}, 'stop'));
      writeSse(res, usageChunk(10, 2));
      writeSse(res, usageChunk(10, 2));
      done(res);
    });
    const { events, result } = await run(request());
    const usage = events.filter((e) => e.type === 'model.usage.completed');
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ usage: { inputTokens: 10, outputTokens: 2 } });
    await expect(result).resolves.toMatchObject({ usage: { inputTokens: 10, outputTokens: 2 } });
  });

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

  it('rejects a tool name the model invents', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk(toolDelta(0, { id: 't1', name: 'refund_create__v1', args: '{}' })));
      writeSse(res, chunk({}, 'tool_calls'));
      writeSse(res, usageChunk(1, 1));
      done(res);
    });
    const { result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.unknown_tool', retryable: false });
  });

  it('asks for json_schema output and validates the answer against it', async () => {
    const outputSchema = {
      type: 'object',
      properties: { route: { type: 'string' } },
      required: ['route'],
      additionalProperties: false,
    };
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: '{"rou' }));
      writeSse(res, chunk({ content: 'te":"refund"}' }));
      writeSse(res, chunk({}, 'stop'));
      writeSse(res, usageChunk(5, 5));
      done(res);
    });
    const good = await provider.stream(request({ outputSchema, tools: undefined }), {
      signal: new AbortController().signal,
      onEvent: () => undefined,
    });
    expect(JSON.parse(good.text)).toEqual({ route: 'refund' });
    expect(server.requests.at(-1)!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'harness_output', schema: outputSchema, strict: false },
    });

    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: '{"other":1}' }));
      writeSse(res, chunk({}, 'stop'));
      writeSse(res, usageChunk(5, 5));
      done(res);
    });
    const bad = await run(request({ outputSchema }));
    await expect(bad.result).rejects.toMatchObject({ code: 'model.output_invalid' });
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

  it('sends prior tool calls and results with provider-safe names', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk({ content: 'done' }, 'stop'));
      writeSse(res, usageChunk(1, 1));
      done(res);
    });
    await provider.stream(
      request({
        messages: [
          { role: 'user', content: 'order A1?' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'tc1', name: 'order.read', version: 'v1', args: { orderId: 'A1' } }],
          },
          { role: 'tool', toolCallId: 'tc1', content: '{"status":"paid"}' },
        ],
      }),
      { signal: new AbortController().signal, onEvent: () => undefined },
    );
    expect(server.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'order A1?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'tc1',
            type: 'function',
            function: { name: 'order_read__v1', arguments: '{"orderId":"A1"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'tc1', content: '{"status":"paid"}' },
    ]);
  });

  it('rejects tool arguments that are not a JSON object', async () => {
    server.handle((_req, res) => {
      startSse(res);
      writeSse(res, chunk(toolDelta(0, { id: 't1', name: 'order_read__v1', args: '{"orderId": ' })));
      writeSse(res, chunk({}, 'tool_calls'));
      writeSse(res, usageChunk(1, 1));
      done(res);
    });
    const { events, result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.invalid_tool_arguments', retryable: false });
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.invalid_tool_arguments' });
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
