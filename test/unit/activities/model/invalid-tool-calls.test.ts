import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../../src/activities/digest.js';
import {
  MAX_INVALID_TOOL_CALLS,
  parseToolArguments,
} from '../../../../src/activities/model/invalid-tool-calls.js';
import { ScriptedProvider } from '../../../../src/activities/model/scripted-provider.js';
import { parseModelScript } from '../../../../src/activities/model/scripted-script.js';
import { StreamAssembler } from '../../../../src/activities/model/stream-assembler.js';
import { ToolNameCodec } from '../../../../src/activities/model/tool-names.js';
import type { ModelEvent } from '../../../../src/activities/model/events.js';
import type { ModelRequest } from '../../../../src/activities/model/types.js';

const tools = [{ name: 'order.read', version: 'v1', description: '', parameters: { type: 'object' } }];

function request(report: boolean): ModelRequest {
  return {
    callId: 'c',
    purpose: 'decide',
    model: 'r',
    messages: [{ role: 'user', content: 'x' }],
    tools,
    ...(report ? { invalidToolCalls: 'report' as const } : {}),
  };
}

function assembler(report: boolean, events: ModelEvent[] = []): StreamAssembler {
  return new StreamAssembler({
    req: request(report),
    provider: 'test',
    onEvent: (e) => events.push(e),
    price: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
    codec: new ToolNameCodec(tools),
    configuredModel: 'm',
  });
}

function finish(asm: StreamAssembler): ReturnType<StreamAssembler['complete']> {
  asm.setStopReason('tool_calls');
  asm.setUsage({ inputTokens: 1, outputTokens: 1 });
  return asm.complete();
}

describe('parseToolArguments', () => {
  it('takes a JSON object, an empty text as {}, and says why anything else is not arguments', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ args: { a: 1 } });
    expect(parseToolArguments('  ')).toEqual({ args: {} });
    expect(parseToolArguments('{"a":')).toEqual({ code: 'tool.arguments_not_json' });
    expect(parseToolArguments('[1]')).toEqual({ code: 'tool.arguments_not_object', kind: 'an array' });
    expect(parseToolArguments('"s"')).toEqual({ code: 'tool.arguments_not_object', kind: 'a string' });
    expect(parseToolArguments('null')).toEqual({ code: 'tool.arguments_not_object', kind: 'null' });
  });
});

describe('StreamAssembler with invalid tool calls', () => {
  it('throws as before when the request does not ask: not offered, not JSON, not an object', () => {
    expect(() => assembler(false).addToolCallFragment(0, { id: 'a', name: 'refund_issue__v1' })).toThrow(
      expect.objectContaining({ code: 'model.unknown_tool' }) as Error,
    );
    const notJson = assembler(false);
    notJson.addToolCallFragment(0, { id: 'a', name: 'order_read__v1', arguments: '{"orderId": ' });
    expect(() => finish(notJson)).toThrow(
      expect.objectContaining({ code: 'model.invalid_tool_arguments' }) as Error,
    );
    const notObject = assembler(false);
    notObject.addToolCallFragment(0, { id: 'a', name: 'order_read__v1', arguments: '[1,2]' });
    expect(() => finish(notObject)).toThrow(
      expect.objectContaining({ code: 'model.invalid_tool_arguments' }) as Error,
    );
  });

  it('reports them beside the valid calls when asked, bounded and without the argument text', () => {
    const events: ModelEvent[] = [];
    const asm = assembler(true, events);
    const longName = `x${'y'.repeat(200)}`;
    asm.addToolCallFragment(0, { id: 'a', name: 'order_read__v1', arguments: '{"orderId": "A1"' });
    asm.addToolCallFragment(1, { id: 'b', name: longName, arguments: '{"secret":"sk-123"}' });
    asm.addToolCallFragment(2, { id: 'c', name: 'order_read__v1', arguments: '{"orderId":"A2"}' });
    asm.addToolCallFragment(3, { id: 'd', name: 'order_read__v1', arguments: '"A3"' });
    const out = finish(asm);
    expect(out.toolCalls).toEqual([
      {
        id: 'c',
        name: 'order.read',
        version: 'v1',
        args: { orderId: 'A2' },
        rawArguments: '{"orderId":"A2"}',
      },
    ]);
    expect(out.invalidToolCalls).toEqual([
      {
        id: 'a',
        name: 'order_read__v1',
        tool: 'order.read@v1',
        code: 'tool.arguments_not_json',
        message: expect.stringContaining('not valid JSON (16 characters)') as string,
        argsDigest: sha256Digest('{"orderId": "A1"'),
        argsChars: 16,
      },
      {
        id: 'b',
        name: longName.slice(0, 64),
        code: 'tool.not_offered',
        message: expect.stringContaining('was not offered') as string,
        argsDigest: sha256Digest('{"secret":"sk-123"}'),
        argsChars: 19,
      },
      expect.objectContaining({ id: 'd', code: 'tool.arguments_not_object', tool: 'order.read@v1' }),
    ]);
    expect(JSON.stringify(out.invalidToolCalls)).not.toContain('sk-123');
    expect(out.stopReason).toBe('tool_calls');
    const completed = events.find((e) => e.type === 'model.output.completed');
    expect(completed).toMatchObject({ invalidToolCalls: out.invalidToolCalls });
  });

  it('an answer of invalid calls only is not a final answer: no structured-output check', () => {
    const asm = new StreamAssembler({
      req: { ...request(true), outputSchema: { type: 'object', required: ['x'] } },
      provider: 'test',
      onEvent: () => undefined,
      price: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
      codec: new ToolNameCodec(tools),
      configuredModel: 'm',
    });
    asm.addToolCallFragment(0, { id: 'a', name: 'nope' });
    asm.setStopReason('end_turn');
    asm.setUsage({ inputTokens: 1, outputTokens: 1 });
    expect(asm.complete().invalidToolCalls).toHaveLength(1);
  });

  it(`reports at most ${MAX_INVALID_TOOL_CALLS} in one answer`, () => {
    const asm = assembler(true);
    for (let i = 0; i < MAX_INVALID_TOOL_CALLS + 5; i++)
      asm.addToolCallFragment(i, { id: `c${i}`, name: `t${i}` });
    const out = finish(asm);
    expect(out.invalidToolCalls).toHaveLength(MAX_INVALID_TOOL_CALLS);
    expect(out.invalidToolCalls?.[0]?.id).toBe('c0');
  });
});

describe('ScriptedProvider with invalid tool calls', () => {
  const provider = new ScriptedProvider(
    parseModelScript({
      entries: [],
      fallback: {
        toolCalls: [
          { id: 't1', name: 'order.read', version: 'v1', rawArguments: '{"orderId": "A1"' },
          { id: 't2', name: 'refund.create', version: 'v1', args: { amount: 5 } },
        ],
      },
    }),
  );
  const call = (r: ModelRequest) =>
    provider.stream(r, { signal: new AbortController().signal, onEvent: () => undefined });

  it('fails the call when the request does not ask', async () => {
    await expect(call(request(false))).rejects.toMatchObject({
      code: 'model.unknown_tool',
      retryable: false,
    });
    const onlyBadArgs = new ScriptedProvider(
      parseModelScript({
        entries: [],
        fallback: { toolCalls: [{ name: 'order.read', version: 'v1', rawArguments: '{' }] },
      }),
    );
    await expect(
      onlyBadArgs.stream(request(false), { signal: new AbortController().signal, onEvent: () => undefined }),
    ).rejects.toMatchObject({ code: 'model.invalid_tool_arguments', retryable: false });
  });

  it('returns them when asked', async () => {
    const out = await call(request(true));
    expect(out.toolCalls).toEqual([]);
    expect(out.invalidToolCalls?.map((c) => [c.id, c.name, c.code])).toEqual([
      ['t1', 'order_read__v1', 'tool.arguments_not_json'],
      ['t2', 'refund_create__v1', 'tool.not_offered'],
    ]);
  });
});
