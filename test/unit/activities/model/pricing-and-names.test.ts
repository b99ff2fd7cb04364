import { describe, expect, it } from 'vitest';
import { costUsd, priceFor } from '../../../../src/activities/model/pricing.js';
import {
  PROVIDER_TOOL_NAME,
  ToolNameCodec,
  encodeToolName,
} from '../../../../src/activities/model/tool-names.js';

describe('pricing', () => {
  it('prices a route, falls back to *, and refuses unpriced routes', () => {
    const table = {
      'support@1': { inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
      '*': { inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
    };
    expect(
      costUsd(priceFor(table, 'support@1'), { inputTokens: 1_000_000, outputTokens: 100_000 }),
    ).toBeCloseTo(4.5, 9);
    expect(priceFor(table, 'other')).toEqual({ inputUsdPerMTok: 1, outputUsdPerMTok: 1 });
    expect(() => priceFor({ 'support@1': table['support@1'] }, 'other')).toThrow(
      /model route "other" has no price/,
    );
  });
});

describe('tool names', () => {
  it('encodes harness names into provider-safe names and decodes only offered tools', () => {
    expect(encodeToolName('order.read', 'v1')).toBe('order_read__v1');
    expect(encodeToolName('policy.search.refund', 'v12')).toBe('policy_search_refund__v12');
    const codec = new ToolNameCodec([{ name: 'order.read', version: 'v1', description: '', parameters: {} }]);
    expect(codec.decode('order_read__v1')).toMatchObject({ name: 'order.read', version: 'v1' });
    expect(() => codec.decode('order_read__v2')).toThrow(/not offered/);
    expect(() => codec.decode('refund.create')).toThrow(/not offered/);
  });

  it('rejects names that cannot be encoded or that collide', () => {
    expect(() => encodeToolName('a'.repeat(70), 'v1')).toThrow(/provider-safe/);
    expect(() => encodeToolName('bad name', 'v1')).toThrow(/provider-safe/);
    expect(
      () =>
        new ToolNameCodec([
          { name: 'a.b', version: 'v1', description: '', parameters: {} },
          { name: 'a_b', version: 'v1', description: '', parameters: {} },
        ]),
    ).toThrow(/share the provider name a_b__v1/);
    expect(PROVIDER_TOOL_NAME.test(encodeToolName('x.y', 'v1'))).toBe(true);
  });
});
