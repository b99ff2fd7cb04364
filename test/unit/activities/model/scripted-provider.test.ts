import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../../src/activities/context/tokenizer.js';
import { ScriptedProvider } from '../../../../src/activities/model/scripted-provider.js';
import { loadModelScriptFile, parseModelScript } from '../../../../src/activities/model/scripted-script.js';
import type { ModelEvent } from '../../../../src/activities/model/events.js';
import type { ModelRequest } from '../../../../src/activities/model/types.js';

const tools = [
  { name: 'order.read', version: 'v1', description: 'Read an order', parameters: { type: 'object' } },
];

const script = parseModelScript({
  entries: [
    {
      match: { purpose: 'route' },
      response: { text: '{"route":"refund_workflow"}', usage: { inputTokens: 11, outputTokens: 7 } },
    },
    {
      match: { step: 0, contains: 'order' },
      response: { toolCalls: [{ id: 'tc1', name: 'order.read', version: 'v1', args: { orderId: 'A1' } }] },
    },
    {
      match: { matches: '"status":\\s*"paid"' },
      response: { text: 'Your order is paid and eligible for a refund.' },
    },
  ],
});

function req(over: Partial<ModelRequest>): ModelRequest {
  return {
    callId: 'c1',
    purpose: 'decide',
    model: 'scripted@1',
    messages: [{ role: 'user', content: 'hi' }],
    tools,
    ...over,
  };
}

async function call(
  provider: ScriptedProvider,
  r: ModelRequest,
): Promise<{ events: ModelEvent[]; out: Awaited<ReturnType<ScriptedProvider['stream']>> }> {
  const events: ModelEvent[] = [];
  const out = await provider.stream(r, {
    signal: new AbortController().signal,
    onEvent: (e) => events.push(e),
  });
  return { events, out };
}

describe('ScriptedProvider', () => {
  const provider = new ScriptedProvider(script);

  it('matches by purpose and streams the text in chunks with the scripted usage', async () => {
    const { events, out } = await call(provider, req({ purpose: 'route' }));
    expect(out).toMatchObject({
      text: '{"route":"refund_workflow"}',
      stopReason: 'end_turn',
      usage: { inputTokens: 11, outputTokens: 7 },
      costUsd: 0,
      providerModel: 'scripted',
    });
    const deltas = events.filter((e) => e.type === 'model.text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['model.output.completed', 'model.usage.completed']);
    expect(events[0]).toMatchObject({ type: 'model.started', provider: 'scripted' });
  });

  it('matches by step and substring and proposes tool calls with fragmented arguments', async () => {
    const { events, out } = await call(
      provider,
      req({ messages: [{ role: 'user', content: 'where is my order?' }] }),
    );
    expect(out.stopReason).toBe('tool_calls');
    expect(out.toolCalls).toEqual([
      {
        id: 'tc1',
        name: 'order.read',
        version: 'v1',
        args: { orderId: 'A1' },
        rawArguments: '{"orderId":"A1"}',
      },
    ]);
    expect(events.filter((e) => e.type === 'model.tool_call.delta').length).toBeGreaterThan(1);
    expect(out.usage.inputTokens).toBe(countTokens('where is my order?'));
  });

  it('matches a regex on the last tool message at a later step', async () => {
    const { out } = await call(
      provider,
      req({
        messages: [
          { role: 'user', content: 'where is my order?' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'tc1', name: 'order.read', version: 'v1', args: {} }],
          },
          { role: 'tool', toolCallId: 'tc1', content: '{"status": "paid"}' },
        ],
      }),
    );
    expect(out.text).toBe('Your order is paid and eligible for a refund.');
  });

  it('fails with script_no_match when nothing matches and there is no fallback', async () => {
    const events: ModelEvent[] = [];
    await expect(
      provider.stream(req({ messages: [{ role: 'user', content: 'weather?' }] }), {
        signal: new AbortController().signal,
        onEvent: (e) => events.push(e),
      }),
    ).rejects.toMatchObject({
      code: 'model.script_no_match',
      retryable: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.script_no_match' });
  });

  it('rejects a scripted tool the request did not offer', async () => {
    const p = new ScriptedProvider(
      parseModelScript({ entries: [], fallback: { toolCalls: [{ name: 'refund.create', version: 'v1' }] } }),
    );
    await expect(call(p, req({}))).rejects.toMatchObject({ code: 'model.unknown_tool' });
  });

  it("checks an answer against the outputSchema, unless the caller checks it (outputCheck 'caller')", async () => {
    const outputSchema = {
      type: 'object',
      properties: { route: { type: 'string', enum: ['refund_workflow', 'order_status'] } },
      required: ['route'],
      additionalProperties: false,
    };
    const p = new ScriptedProvider(
      parseModelScript({ entries: [], fallback: { text: '{"route":"weather"}' } }),
    );
    const events: ModelEvent[] = [];
    await expect(
      p.stream(req({ purpose: 'route', tools: undefined, outputSchema }), {
        signal: new AbortController().signal,
        onEvent: (e) => events.push(e),
      }),
    ).rejects.toMatchObject({ code: 'model.output_invalid', retryable: false });
    expect(events.at(-1)).toMatchObject({ type: 'model.failed', code: 'model.output_invalid' });

    const { events: asked, out } = await call(
      p,
      req({ purpose: 'route', tools: undefined, outputSchema, outputCheck: 'caller' }),
    );
    expect(out).toMatchObject({ text: '{"route":"weather"}', stopReason: 'end_turn' });
    expect(asked.map((e) => e.type).slice(-2)).toEqual(['model.output.completed', 'model.usage.completed']);

    // Not even JSON: still the caller's to read.
    const prose = new ScriptedProvider(
      parseModelScript({ entries: [], fallback: { text: 'weather, I think' } }),
    );
    await expect(call(prose, req({ tools: undefined, outputSchema }))).rejects.toMatchObject({
      code: 'model.output_invalid',
    });
    const loose = await call(prose, req({ tools: undefined, outputSchema, outputCheck: 'caller' }));
    expect(loose.out.text).toBe('weather, I think');
  });

  it('is cancellable between chunks', async () => {
    const ac = new AbortController();
    const events: ModelEvent[] = [];
    const p = provider.stream(req({ purpose: 'route' }), {
      signal: ac.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'model.text.delta') ac.abort();
      },
    });
    await expect(p).rejects.toMatchObject({ code: 'model.cancelled' });
    expect(events.filter((e) => e.type === 'model.text.delta')).toHaveLength(1);
  });
});

describe('a held scripted answer (delayMs)', () => {
  it('is returned that much later, even when the call was cancelled meanwhile', async () => {
    const held = new ScriptedProvider(
      parseModelScript({ entries: [], fallback: { text: 'late', delayMs: 150 } }),
    );
    const abort = new AbortController();
    const started = Date.now();
    const answer = held.stream(req({}), { signal: abort.signal, onEvent: () => undefined });
    setTimeout(() => abort.abort(), 20);
    expect(await answer).toMatchObject({ text: 'late' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(() => parseModelScript({ entries: [], fallback: { text: 'x', delayMs: 60_001 } })).toThrow(
      /fallback\.delayMs/,
    );
  });
});

describe('model script validation', () => {
  it('names the bad field', () => {
    expect(() =>
      parseModelScript({ entries: [{ match: { step: 'one' }, response: { text: 'x' } }] }),
    ).toThrow(/entries\.0\.match\.step/);
    expect(() =>
      parseModelScript({ entries: [{ match: { purpose: 'chat' }, response: { text: 'x' } }] }),
    ).toThrow(/entries\.0\.match\.purpose/);
    expect(() =>
      parseModelScript({ entries: [{ match: { matches: '(' }, response: { text: 'x' } }] }),
    ).toThrow(/entries\.0\.match\.matches: not a valid regular expression/);
    expect(() => parseModelScript({ entries: [{ response: {} }] })).toThrow(/needs text or toolCalls/);
    expect(() => parseModelScript({ entries: [], extra: 1 })).toThrow(
      /model\.script_invalid|Unrecognized key/,
    );
    expect(() => parseModelScript('{not json')).toThrow(/is not JSON/);
  });

  it('loads a script file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'script-'));
    const file = join(dir, 's.json');
    writeFileSync(file, JSON.stringify({ entries: [{ response: { text: 'ok' } }] }));
    expect(loadModelScriptFile(file).entries).toHaveLength(1);
    writeFileSync(file, JSON.stringify({ entries: [{ response: { text: 3 } }] }));
    expect(() => loadModelScriptFile(file)).toThrow(new RegExp(`${file}: entries\\.0\\.response\\.text`));
    expect(() => loadModelScriptFile(join(dir, 'missing.json'))).toThrow(/cannot read model script/);
  });
});
