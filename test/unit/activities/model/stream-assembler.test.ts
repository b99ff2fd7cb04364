import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../../../src/activities/model/errors.js';
import { StreamAssembler } from '../../../../src/activities/model/stream-assembler.js';
import { ToolNameCodec } from '../../../../src/activities/model/tool-names.js';
import type { ModelEvent } from '../../../../src/activities/model/events.js';
import type { ModelRequest } from '../../../../src/activities/model/types.js';

const tools = [
  { name: 'order.read', version: 'v1', description: '', parameters: { type: 'object' } },
  { name: 'policy.search.refund', version: 'v2', description: '', parameters: { type: 'object' } },
];
const req: ModelRequest = {
  callId: 'c',
  purpose: 'decide',
  model: 'r',
  messages: [{ role: 'user', content: 'x' }],
  tools,
};

function assembler(events: ModelEvent[]): StreamAssembler {
  return new StreamAssembler({
    req,
    provider: 'test',
    onEvent: (e) => events.push(e),
    price: { inputUsdPerMTok: 1, outputUsdPerMTok: 2 },
    codec: new ToolNameCodec(tools),
    configuredModel: 'm',
  });
}

/** Cuts `s` at the given positions. */
function cut(s: string, at: number[]): string[] {
  const points = [...new Set(at.map((n) => n % (s.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(s.slice(prev, p));
    prev = p;
  }
  out.push(s.slice(prev));
  return out;
}

describe('StreamAssembler', () => {
  it('assembles any fragmentation and interleaving of two tool calls and text to the same output', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
        (a, b, cutsA, cutsB, order) => {
          const rawA = JSON.stringify(a);
          const rawB = JSON.stringify(b);
          const fa = cut(rawA, cutsA);
          const fb = cut(rawB, cutsB);
          const events: ModelEvent[] = [];
          const asm = assembler(events);
          asm.addToolCallFragment(0, { id: 'a', name: 'order_read__v1', arguments: fa.shift() ?? '' });
          asm.addToolCallFragment(1, {
            id: 'b',
            name: 'policy_search_refund__v2',
            arguments: fb.shift() ?? '',
          });
          let i = 0;
          while (fa.length > 0 || fb.length > 0) {
            const pickA = fb.length === 0 || (fa.length > 0 && (order[i++ % order.length] ?? true));
            if (pickA) asm.addToolCallFragment(0, { arguments: fa.shift()! });
            else asm.addToolCallFragment(1, { arguments: fb.shift()! });
            asm.addText('.');
          }
          asm.setStopReason('tool_calls');
          asm.setUsage({ inputTokens: 3 });
          asm.setUsage({ outputTokens: 4 });
          const out = asm.complete();
          expect(out.toolCalls).toEqual([
            {
              id: 'a',
              name: 'order.read',
              version: 'v1',
              args: JSON.parse(rawA) as unknown,
              rawArguments: rawA,
            },
            {
              id: 'b',
              name: 'policy.search.refund',
              version: 'v2',
              args: JSON.parse(rawB) as unknown,
              rawArguments: rawB,
            },
          ]);
          expect(out.usage).toEqual({ inputTokens: 3, outputTokens: 4 });
          expect(events.filter((e) => e.type === 'model.usage.completed')).toHaveLength(1);
        },
      ),
    );
  });

  it('emits model.failed once and never usage when failing', () => {
    const events: ModelEvent[] = [];
    const asm = assembler(events);
    asm.started();
    asm.setUsage({ inputTokens: 3, outputTokens: 1 });
    const err = new ModelError('model.connection_lost', 'lost');
    expect(() => asm.fail(err)).toThrow(err);
    expect(() => asm.fail(err)).toThrow(err);
    expect(events.map((e) => e.type)).toEqual(['model.started', 'model.failed']);
  });

  it("validates an end_turn answer against the outputSchema unless outputCheck is 'caller'", () => {
    const outputSchema = { type: 'object', required: ['route'], properties: { route: { enum: ['a'] } } };
    const answer = (over: Partial<ModelRequest>): StreamAssembler => {
      const asm = new StreamAssembler({
        req: { ...req, tools: undefined, outputSchema, ...over },
        provider: 'test',
        onEvent: () => undefined,
        price: { inputUsdPerMTok: 1, outputUsdPerMTok: 2 },
        codec: new ToolNameCodec([]),
        configuredModel: 'm',
      });
      asm.started();
      asm.addText('{"route":"b"}');
      asm.setStopReason('end_turn');
      asm.setUsage({ inputTokens: 1, outputTokens: 1 });
      return asm;
    };
    expect(() => answer({}).complete()).toThrow(
      expect.objectContaining({ code: 'model.output_invalid' }) as Error,
    );
    expect(answer({ outputCheck: 'caller' }).complete()).toMatchObject({
      text: '{"route":"b"}',
      stopReason: 'end_turn',
    });
  });

  it('requires a stop reason and usage to complete', () => {
    const noStop = assembler([]);
    noStop.setUsage({ inputTokens: 1, outputTokens: 1 });
    expect(() => noStop.complete()).toThrow(
      expect.objectContaining({ code: 'model.connection_lost' }) as Error,
    );
    const noUsage = assembler([]);
    noUsage.setStopReason('end_turn');
    expect(() => noUsage.complete()).toThrow(
      expect.objectContaining({ code: 'model.usage_missing' }) as Error,
    );
  });
});
