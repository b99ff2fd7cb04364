/**
 * Python's float behaviour where the benchmark depends on it: `round(x, 2)` and `repr(x)`/`str(x)`
 * (`json.dumps` is in py-json.ts).
 * JavaScript numbers are the same IEEE doubles as Python floats, so `+ - * /` agree already.
 */

/**
 * Python's `round(x, 2)`: the double nearest to the decimal with two places that is nearest to the
 * exact binary value of `x`, ties to even (Python rounds the exact value, so 2.675 -> 2.67 because
 * the double below 2.675 is nearer; 0.125 -> 0.12 on the tie). Infinities and NaN come back as they
 * are; a negative value that rounds to zero gives -0, as in Python.
 */
export function pyRound2(x: number): number {
  if (!Number.isFinite(x)) return x;
  const magnitude = Math.abs(x);
  // toFixed rounds the exact value too (ties away from zero); an exact tie at the third place is a
  // multiple of 1/8 with an odd numerator (x * 8 is exact), where Python rounds half to even.
  const eighths = magnitude * 8;
  let rounded: number;
  if (magnitude < 2 ** 49 && Number.isInteger(eighths) && eighths % 2 === 1) {
    const cents = magnitude * 100; // exact: a multiple of 12.5 below 2^56
    const down = Math.floor(cents);
    rounded = (down % 2 === 0 ? down : down + 1) / 100;
  } else {
    rounded = Number(magnitude.toFixed(2));
  }
  return x < 0 || Object.is(x, -0) ? -rounded : rounded;
}

/**
 * Python's `repr(x)` (= `str(x)`) of a float: the shortest digits that round-trip (as JavaScript's),
 * fixed notation with at least one decimal (`4.0`) when the decimal exponent is in [-4, 16),
 * otherwise `d.ddde+XX` with at least two exponent digits (`1e+16`, `1.5e-05`); `inf`, `-inf`, `nan`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const [mantissa = '0', exp = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exp);
  if (exponent >= 16 || exponent < -4) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exponent).toString().padStart(2, '0');
    return `${sign}${m}e${exponent < 0 ? '-' : '+'}${e}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}
