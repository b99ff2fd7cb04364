import { describe, expect, it } from 'vitest';
import { pyCalculate } from '../../../apps/retail/domain/py-calculate.js';
import { pyFloatRepr, pyRound2 } from '../../../apps/retail/domain/py-float.js';
import { pyJsonDumpsSortedStringMap } from '../../../apps/retail/domain/py-json.js';

/** The failure of a calculation: its code and message. */
function calcError(expression: string): { code: unknown; message: string } {
  try {
    pyCalculate(expression);
  } catch (err) {
    return { code: (err as { code?: unknown }).code, message: (err as Error).message };
  }
  throw new Error(`${expression} did not fail`);
}

describe("Python's round(x, 2) and repr", () => {
  it('rounds the exact binary value, ties to even, as CPython does', () => {
    // Values checked against CPython 3.11: round(2.675, 2) == 2.67 (the double is below 2.675).
    expect(pyRound2(2.675)).toBe(2.67);
    expect(pyRound2(0.125)).toBe(0.12); // an exact tie: to even
    expect(pyRound2(0.375)).toBe(0.38);
    expect(pyRound2(1.005)).toBe(1); // 1.00499999999999989...
    expect(pyRound2(49 + 4079.45)).toBe(4128.45);
    expect(pyRound2(-135.03999999999994)).toBe(-135.04);
    expect(Object.is(pyRound2(-0.001), -0)).toBe(true);
    expect(pyRound2(1e300)).toBe(1e300);
  });

  it('prints floats as repr() does', () => {
    expect(pyFloatRepr(4)).toBe('4.0');
    expect(pyFloatRepr(-17.99)).toBe('-17.99');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    expect(pyFloatRepr(1234567890123456.8)).toBe('1234567890123456.8');
    expect(pyFloatRepr(1.5e-5)).toBe('1.5e-05');
    expect(pyFloatRepr(0.0001)).toBe('0.0001');
    expect(pyFloatRepr(-0)).toBe('-0.0');
    expect(pyFloatRepr(Number.POSITIVE_INFINITY)).toBe('inf');
  });

  it("dumps a string map as json.dumps(sort_keys=True) does (ensure_ascii, ', ' and ': ')", () => {
    const map = new Map([
      ['b', '2'],
      ['a', 'é"'],
    ]);
    expect(pyJsonDumpsSortedStringMap(map)).toBe('{"a": "\\u00e9\\"", "b": "2"}');
  });
});

describe('calculate: str(round(float(eval(expression)), 2))', () => {
  it.each([
    // The gold actions' own expressions and outputs of CPython for the rest.
    ['3131.1 + 4777.75 + 367.38', '8276.23'],
    ['135.24 - 153.23', '-17.99'],
    ['155.33 - 147.05 + 268.77 - 235.13', '41.92'],
    ['7 / 2', '3.5'],
    ['2 ** 3 // 3', '2.0'],
    ['-7 // 2', '-4.0'],
    ['-7.5 // 2', '-4.0'],
    ['-2**2', '-4.0'],
    ['2**-1', '0.5'],
    ['10**16', '1e+16'],
    ['0.125', '0.12'],
    ['2.675', '2.67'],
    ['-0.001', '-0.0'],
    ['  (1 + 2) * 3', '9.0'],
    ['.5 + 1.', '1.5'],
  ])('%s -> %s', (expression, expected) => {
    expect(pyCalculate(expression)).toBe(expected);
  });

  it.each([
    ['1 + x', 'Invalid characters in expression'],
    ['1e5', 'Invalid characters in expression'],
    ['1/0', 'division by zero'],
    ['1.0/0', 'float division by zero'],
    ['1//0', 'integer division or modulo by zero'],
    ['2.5//0', 'float floor division by zero'],
    ['0**-1', '0.0 cannot be raised to a negative power'],
    ['(1 + 2', "'(' was never closed (<string>, line 1)"],
    ['1 + 2)', "unmatched ')' (<string>, line 1)"],
    [
      '007',
      'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)',
    ],
    ['2(3)', "'int' object is not callable"],
    ['1 +', 'invalid syntax (<string>, line 1)'],
    ['1.5.5', 'invalid syntax (<string>, line 1)'],
  ])('%s fails with %s', (expression, message) => {
    expect(calcError(expression)).toEqual({ code: 'retail.tool_error', message });
  });
});
