import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  countInPieces,
  countTokens,
  type TokenEncoding,
} from '../../../../src/activities/context/tokenizer.js';

/**
 * The reference: OpenAI's tiktoken ranks through js-tiktoken (the tokenizer the harness used before),
 * special-token text as ordinary text, on the same pieces `countTokens` cuts.
 */
const reference: Record<TokenEncoding, Tiktoken> = {
  o200k_base: new Tiktoken(o200kRanks),
  cl100k_base: new Tiktoken(cl100kRanks),
};

function referenceCount(text: string, encoding: TokenEncoding): number {
  return countInPieces(text, (piece) => reference[encoding].encode(piece, [], []).length);
}

const CORPUS: readonly string[] = [
  'hello world',
  'The refund of 42.50 EUR for order ORD-1001 was approved by alice@example.com.',
  '退款已经批准，订单号 ORD-1001。请在三个工作日内查收。',
  'こんにちは世界、注文は発送されました。',
  'Ünïcödé, emoji 👩‍👩‍👧‍👦🚀🔥 and flags 🇩🇪🇯🇵',
  'function add(a: number, b: number): number {\n  return a + b;\n}\n',
  JSON.stringify({ order: { id: 'ORD-1', items: [{ sku: 'A-1', qty: 2, price: 9.99 }], paid: true } }),
  '<|endoftext|> is text here, as are <|fim_prefix|>, <|im_start|> and <|endofprompt|>',
  '   leading, trailing and\t\ttabs   \n\n\n  newlines  ',
  'x\n ',
  'a\n  ',
  'a\n \n b\n  ',
  'a\r\n  b\r\n',
  '\u00a0non-breaking\u3000ideographic\u2028line separator',
  'a'.repeat(700),
  'ab1'.repeat(400),
  `${'x'.repeat(300)} ${'y'.repeat(300)}`,
  Buffer.from('a base64 blob of some bytes '.repeat(40)).toString('base64'),
  '🚀'.repeat(300),
  'lone surrogates \uD800 and \uDFFF stay text',
  `<<<DATA id="run-1:m2:0" kind="tool_fact" trust="untrusted" source="tool://bench.noop@v1/call/run-1:m1:a1_tc0">>>\n{"next":1}\n<<<END DATA id="run-1:m2:0">>>`,
];

describe('countTokens', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    it(`counts exactly what tiktoken's ${encoding} ranks count (corpus)`, () => {
      for (const text of CORPUS)
        expect(countTokens(text, encoding), text.slice(0, 40)).toBe(referenceCount(text, encoding));
    });

    it(`counts exactly what tiktoken's ${encoding} ranks count (any string)`, () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (text) => {
          expect(countTokens(text, encoding)).toBe(referenceCount(text, encoding));
        }),
        { numRuns: 300 },
      );
    });

    it(`counts exactly what tiktoken's ${encoding} ranks count (whitespace around words)`, () => {
      // Pre-tokenisers differ most around runs of whitespace and line ends.
      const char = fc.constantFrom(
        ' ',
        '  ',
        '\n',
        '\r\n',
        '\t',
        '\u00a0',
        '\u3000',
        'a',
        'Zb',
        '1',
        '.',
        '字',
        '🙂',
      );
      fc.assert(
        fc.property(fc.array(char, { maxLength: 40 }), (parts) => {
          const text = parts.join('');
          expect(countTokens(text, encoding)).toBe(referenceCount(text, encoding));
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('refuses an encoding it does not have', () => {
    expect(() => countTokens('hi', 'p50k_base' as TokenEncoding)).toThrow(RangeError);
  });

  it('is 0 for the empty string and never throws', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('\uD83D')).toBeGreaterThan(0);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });
});
