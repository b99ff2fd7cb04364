import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  InputReasonCodes,
  OutputReasonCodes,
  checkInput,
  checkOutput,
  cnIdChecksumValid,
  luhnValid,
  maskPhone,
} from '../../../../src/workflows/guardrails/index.js';
import { emptyRun, observedOnlyRun } from './refund-evidence.js';

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((a) => a.join(''));

function luhnComplete(body: string): string {
  for (let d = 0; d <= 9; d += 1) if (luhnValid(`${body}${d}`)) return `${body}${d}`;
  throw new Error('unreachable');
}

const W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
function cnIdComplete(body17: string): string {
  const sum = [...body17].reduce((s, c, i) => s + Number(c) * (W[i] ?? 0), 0);
  return `${body17}${'10X98765432'[sum % 11]}`;
}
const cnIdBody = fc
  .tuple(
    fc.integer({ min: 1, max: 9 }),
    digits(5, 5),
    fc.integer({ min: 1900, max: 2020 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    digits(3, 3),
  )
  .map(
    ([a, region, y, m, d, seq]) =>
      `${a}${region}${y}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}${seq}`,
  );
const cnMobile = fc
  .tuple(fc.integer({ min: 3, max: 9 }), digits(9, 9))
  .map(([second, rest]) => `1${second}${rest}`);

/** Any UTF-16 text, lone surrogates included. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 })
    .map((units) => String.fromCharCode(...units)),
);

describe('guardrail properties', () => {
  it('a card number with a right Luhn digit is found; one digit changed, it is not', () => {
    fc.assert(
      fc.property(digits(15, 15), fc.integer({ min: 0, max: 14 }), (body, pos) => {
        const card = luhnComplete(`4${body}`);
        expect(checkInput(`pay with ${card} now`).reasonCodes).toContain(InputReasonCodes.piiCardNumber);
        const wrong = card.slice(0, pos) + String((Number(card[pos]) + 1) % 10) + card.slice(pos + 1);
        expect(luhnValid(wrong)).toBe(false);
      }),
    );
  });

  it('a Chinese identity number is found exactly when its check digit is right', () => {
    fc.assert(
      fc.property(cnIdBody, (body) => {
        const id = cnIdComplete(body);
        expect(cnIdChecksumValid(id)).toBe(true);
        expect(checkInput(`身份证号 ${id}`).reasonCodes).toEqual([InputReasonCodes.piiCnIdNumber]);
        const last = id.at(-1)!;
        const wrong = `${body}${last === '0' ? '1' : '0'}`;
        expect(cnIdChecksumValid(wrong)).toBe(false);
      }),
    );
  });

  it('masking keeps the first three and last four digits, is idempotent, and leaves no phone number', () => {
    fc.assert(
      fc.property(cnMobile, fc.constantFrom('', 'call ', '电话：'), (phone, prefix) => {
        expect(maskPhone(phone)).toBe(`${phone.slice(0, 3)}****${phone.slice(-4)}`);
        const r = checkOutput({ output: `${prefix}${phone}.`, ...emptyRun, obligations: ['mask.phone'] });
        expect(r.output).toBe(`${prefix}${maskPhone(phone)}.`);
        expect(checkInput(r.output).reasonCodes).not.toContain(InputReasonCodes.piiPhone);
        expect(checkOutput({ output: r.output, ...emptyRun, obligations: ['mask.phone'] }).verdict).toBe(
          'pass',
        );
      }),
    );
  });

  it('a rewritten response holds no unsupported claim any more (rewrite is a fixed point)', () => {
    const claims = [
      'Your refund has been created.',
      'We have refunded your order.',
      '已为您退款。',
      '退款已到账。',
      'The service was deployed.',
      'I pushed the branch.',
    ];
    const filler = ['Thank you.', 'Order O-1001 is paid.', '感谢您的耐心。', 'Anything else?'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...claims, ...filler), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (parts, observed) => {
          const run = observed ? observedOnlyRun : emptyRun;
          const r = checkOutput({ output: { message: parts.join(' ') }, ...run }, { mode: 'rewrite' });
          expect(r.verdict).not.toBe('block');
          const again = checkOutput({ output: r.output, ...run });
          expect(again.reasonCodes).not.toContain(OutputReasonCodes.unsupportedClaim);
        },
      ),
    );
  });

  it('never throws, is deterministic, and its spans lie inside the checked strings', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), anyText, (json, text) => {
        const value = { json, text };
        const a = checkInput(value);
        expect(checkInput(value)).toEqual(a);
        for (const f of a.findings) {
          if (f.span === undefined || f.path !== '/text') continue;
          expect(f.span.start).toBeGreaterThanOrEqual(0);
          expect(f.span.end).toBeLessThanOrEqual(text.length);
          expect(f.span.start).toBeLessThan(f.span.end);
        }
        const out = checkOutput({ output: value, ...emptyRun, obligations: ['mask.phone', 'mask.email'] });
        expect(['pass', 'rewritten', 'block']).toContain(out.verdict);
        if (out.verdict === 'block') expect(out.output).toBeNull();
      }),
      { numRuns: 200 },
    );
  });
});
