import { describe, expect, it } from 'vitest';
import type { ModelEvent } from '../../../../src/activities/model/events.js';
import { startSse, writeSse } from './support/fake-http-server.js';
import { chunk, done, toolDelta, usageChunk } from './support/openai-wire.js';
import { KEY, provider, request, run, server, types, useOpenAiServer } from './support/openai-rig.js';

useOpenAiServer();

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
});
