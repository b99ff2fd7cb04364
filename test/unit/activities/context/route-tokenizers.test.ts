import { describe, expect, it } from 'vitest';
import {
  countTokens,
  countWith,
  defaultTokenizer,
  estimateTokens,
} from '../../../../src/activities/context/tokenizer.js';

describe('route tokenizers', () => {
  it('picks a bundled encoding for known models and the conservative estimate otherwise', () => {
    expect(defaultTokenizer('openai', 'gpt-4.1-mini')).toBe('o200k_base');
    expect(defaultTokenizer('openai', 'gpt-4-turbo')).toBe('cl100k_base');
    expect(defaultTokenizer('scripted', 'anything')).toBe('o200k_base');
    expect(defaultTokenizer('anthropic', 'claude-sonnet-4-5')).toBe('estimate');
    expect(defaultTokenizer('openai', 'llama-3-70b')).toBe('estimate');
  });

  it('estimates at least a quarter more than o200k_base and at least a token per 3 bytes', () => {
    for (const text of [
      'The refund was approved.',
      '退款已经批准，订单号 ORD-1001。',
      '{"a":[1,2,3]}',
      'x'.repeat(999),
    ]) {
      const n = estimateTokens(text);
      expect(n).toBeGreaterThanOrEqual(Math.ceil(countTokens(text) * 1.25));
      expect(n).toBeGreaterThanOrEqual(Math.ceil(Buffer.byteLength(text) / 3));
      expect(countWith('estimate', text)).toBe(n);
    }
    expect(estimateTokens('')).toBe(0);
  });
});
