import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelError } from '../../../../src/activities/model/errors.js';
import { ModelBlockedError } from '../../../../src/activities/model/errors.js';
import { AnthropicProvider } from '../../../../src/activities/model/providers/anthropic-provider.js';
import type { ModelEvent } from '../../../../src/activities/model/events.js';
import type { ModelRequest } from '../../../../src/activities/model/types.js';
import { jsonError, startFakeServer, startSse, tick } from './support/fake-http-server.js';
import type { FakeServer } from './support/fake-http-server.js';
import { messageEnd, messageStart, send, textBlock, toolJson, toolStart } from './support/anthropic-wire.js';

const KEY = 'sk-ant-test-secret-987654';
let server: FakeServer;
let provider: AnthropicProvider;

beforeAll(async () => {
  server = await startFakeServer();
  provider = new AnthropicProvider({
    baseURL: server.origin,
    apiKey: KEY,
    model: 'claude-fake-1',
    prices: { 'support-default@1': { inputUsdPerMTok: 3, outputUsdPerMTok: 15 } },
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
  { name: 'logistics.read', version: 'v1', description: 'Read shipping', parameters: { type: 'object' } },
];

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    callId: 'call-a',
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

describe('AnthropicProvider against a local Messages API server', () => {
  it('streams text and counts usage once from message_start + message_delta', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 1200);
      send(res, { type: 'ping' });
      textBlock(res, 0, ['Your order ', 'ships today.']);
      messageEnd(res, 'end_turn', 40);
    });
    const events: ModelEvent[] = [];
    const out = await provider.stream(request(), {
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    });
    expect(out).toMatchObject({
      text: 'Your order ships today.',
      stopReason: 'end_turn',
      usage: { inputTokens: 1200, outputTokens: 40 },
      providerModel: 'claude-fake-1',
    });
    expect(out.costUsd).toBeCloseTo((1200 * 3 + 40 * 15) / 1e6, 12);
    expect(types(events)).toEqual([
      'model.started',
      'model.text.delta',
      'model.text.delta',
      'model.output.completed',
      'model.usage.completed',
    ]);
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    expect([sent.headers['x-api-key'], sent.headers.authorization]).toContainEqual(
      expect.stringContaining(KEY),
    );
    expect(sent.body).toMatchObject({
      model: 'claude-fake-1',
      stream: true,
      system: 'You are a support agent.',
      max_tokens: 4096,
    });
    expect((sent.body.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'order_read__v1',
      'logistics_read__v1',
    ]);
  });

  it('assembles input_json_delta fragments of several tool calls interleaved with text', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 80);
      textBlock(res, 0, ['Let me check.']);
      toolStart(res, 1, 'toolu_1', 'order_read__v1');
      toolJson(res, 1, '');
      toolJson(res, 1, '{"orderId"');
      toolJson(res, 1, ': "A1"}');
      send(res, { type: 'content_block_stop', index: 1 });
      toolStart(res, 2, 'toolu_2', 'logistics_read__v1');
      toolJson(res, 2, '{"orderId":');
      toolJson(res, 2, '"A1"}');
      send(res, { type: 'content_block_stop', index: 2 });
      messageEnd(res, 'tool_use', 60);
    });
    const events: ModelEvent[] = [];
    const out = await provider.stream(request(), {
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    });
    expect(out.stopReason).toBe('tool_calls');
    expect(out.text).toBe('Let me check.');
    expect(out.toolCalls).toEqual([
      {
        id: 'toolu_1',
        name: 'order.read',
        version: 'v1',
        args: { orderId: 'A1' },
        rawArguments: '{"orderId": "A1"}',
      },
      {
        id: 'toolu_2',
        name: 'logistics.read',
        version: 'v1',
        args: { orderId: 'A1' },
        rawArguments: '{"orderId":"A1"}',
      },
    ]);
    const firstDeltas = events.filter((e) => e.type === 'model.tool_call.delta' && e.name !== undefined);
    expect(firstDeltas.map((e) => (e as { index: number }).index)).toEqual([0, 1]);
  });

  it('answers a structured request through the forced tool and returns it as text', async () => {
    const outputSchema = { type: 'object', properties: { route: { type: 'string' } }, required: ['route'] };
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 20);
      toolStart(res, 0, 'toolu_s', 'harness_structured_output');
      toolJson(res, 0, '{"route": ');
      toolJson(res, 0, '"refund"}');
      send(res, { type: 'content_block_stop', index: 0 });
      messageEnd(res, 'tool_use', 9);
    });
    const out = await provider.stream(request({ outputSchema, tools: undefined }), {
      signal: new AbortController().signal,
      onEvent: () => undefined,
    });
    expect(out).toMatchObject({ text: '{"route": "refund"}', toolCalls: [], stopReason: 'end_turn' });
    const body = server.requests.at(-1)!.body;
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'harness_structured_output' });
    expect(body.tools).toEqual([
      {
        name: 'harness_structured_output',
        description: expect.any(String) as string,
        input_schema: outputSchema,
      },
    ]);
  });

  it('merges tool results into user turns with tool_result blocks', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 1);
      textBlock(res, 0, ['ok']);
      messageEnd(res, 'end_turn', 1);
    });
    await provider.stream(
      request({
        messages: [
          { role: 'user', content: 'A1?' },
          {
            role: 'assistant',
            content: 'Checking.',
            toolCalls: [
              { id: 't1', name: 'order.read', version: 'v1', args: { orderId: 'A1' } },
              { id: 't2', name: 'logistics.read', version: 'v1', args: {} },
            ],
          },
          { role: 'tool', toolCallId: 't1', content: 'paid' },
          { role: 'tool', toolCallId: 't2', content: 'not shipped' },
        ],
      }),
      { signal: new AbortController().signal, onEvent: () => undefined },
    );
    expect(server.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'A1?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 't1', name: 'order_read__v1', input: { orderId: 'A1' } },
          { type: 'tool_use', id: 't2', name: 'logistics_read__v1', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'paid' },
          { type: 'tool_result', tool_use_id: 't2', content: 'not shipped' },
        ],
      },
    ]);
  });

  it('turns a disconnect mid-stream into a retryable error without usage', async () => {
    server.handle(async (_req, res) => {
      startSse(res);
      messageStart(res, 50);
      send(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      send(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'par' } });
      await tick(20);
      res.destroy();
    });
    const { events, result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.connection_lost', retryable: true });
    expect(types(events)).not.toContain('model.usage.completed');
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.connection_lost' });
  });

  it('fails a stream that closes cleanly before message_stop', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 50);
      textBlock(res, 0, ['partial']);
      res.end();
    });
    const { result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.connection_lost', retryable: true });
  });

  it('honours Retry-After as an HTTP date on 429 and 529 overloaded is retryable', async () => {
    const when = new Date(Date.now() + 30_000).toUTCString();
    server.handle((_req, res) =>
      jsonError(
        res,
        429,
        { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } },
        { 'retry-after': when },
      ),
    );
    const limited = (await (await run(request())).result.catch((e: unknown) => e)) as ModelError;
    expect(limited).toMatchObject({ code: 'model.rate_limited', retryable: true });
    expect(limited.retryAfterMs).toBeGreaterThan(25_000);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(30_000);

    server.handle((_req, res) =>
      jsonError(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'overloaded' } }),
    );
    await expect((await run(request())).result).rejects.toMatchObject({
      code: 'model.provider_unavailable',
      retryable: true,
    });
  });

  it('makes 400, 401 and 404 non-retryable with actionable messages', async () => {
    server.handle((_req, res) =>
      jsonError(res, 400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: too large' },
      }),
    );
    await expect((await run(request())).result).rejects.toMatchObject({
      code: 'model.bad_request',
      retryable: false,
      message: expect.stringContaining('max_tokens: too large') as string,
    });

    server.handle((_req, res) =>
      jsonError(res, 401, {
        type: 'error',
        error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` },
      }),
    );
    const unauth = (await (await run(request())).result.catch((e: unknown) => e)) as ModelError;
    expect(unauth).toMatchObject({ code: 'model.unauthorized', retryable: false });
    expect(unauth.message).toContain('ANTHROPIC_API_KEY');
    expect(unauth.message).not.toContain(KEY);

    server.handle((_req, res) =>
      jsonError(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: 'model: claude-nope' },
      }),
    );
    await expect((await run(request())).result).rejects.toMatchObject({
      code: 'model.not_found',
      retryable: false,
      message: expect.stringContaining('HARNESS_MODEL') as string,
    });
  });

  it('maps an error event inside the stream', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 5);
      send(res, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      res.end();
    });
    const { events, result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.provider_unavailable', retryable: true });
    expect(events.at(-1)).toMatchObject({ type: 'model.failed' });
  });

  it('reports a refusal as blocked', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 10);
      textBlock(res, 0, ['I cannot']);
      messageEnd(res, 'refusal', 3);
    });
    const { events, result } = await run(request());
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelBlockedError);
    expect(err).toMatchObject({ code: 'model.blocked', reason: 'refusal', retryable: false });
    expect(types(events).slice(-2)).toEqual(['model.usage.completed', 'model.blocked']);
  });

  it('fails closed on an unknown event type', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 10);
      send(res, { type: 'message_surprise', payload: 1 });
      textBlock(res, 0, ['never seen']);
      messageEnd(res, 'end_turn', 3);
    });
    const { events, result } = await run(request());
    await expect(result).rejects.toMatchObject({ code: 'model.unknown_event', retryable: false });
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.unknown_event' });
    expect(types(events)).not.toContain('model.text.delta');
  });

  it('fails closed on an unknown content block type', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 10);
      send(res, {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 's', name: 'web_search', input: {} },
      });
      messageEnd(res, 'end_turn', 3);
    });
    await expect((await run(request())).result).rejects.toMatchObject({ code: 'model.unknown_event' });
  });

  it('aborts the HTTP stream on cancellation', async () => {
    server.handle((_req, res) => {
      startSse(res);
      messageStart(res, 10);
      send(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      send(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hm' } });
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
    await expect(result).rejects.toMatchObject({ code: 'model.cancelled' });
    const seen = await Promise.race([
      server.lastClientAbort().then(() => 'closed'),
      tick(2000).then(() => 'still open'),
    ]);
    expect(seen).toBe('closed');
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.cancelled' });
  });

  it('rejects before any request when already cancelled', async () => {
    const before = server.requests.length;
    const ac = new AbortController();
    ac.abort();
    const { events, result } = await run(request(), ac.signal);
    await expect(result).rejects.toMatchObject({ code: 'model.cancelled' });
    expect(server.requests.length).toBe(before);
    expect(types(events)).toEqual(['model.started', 'model.failed']);
  });
});
