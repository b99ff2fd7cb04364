import { pyFloatRepr, pyRound2 } from './py-float.js';
import { toolError } from './retail-errors.js';

/** A Python number: `int` (arbitrary precision) or `float`. */
type PyNum = { readonly int: bigint } | { readonly float: number };

const ALLOWED = new Set('0123456789+-*/(). ');
const SYNTAX = 'invalid syntax (<string>, line 1)';
/** Largest result of `int ** int`, in bits, this port computes (Python has no such limit). */
const MAX_POWER_BITS = 100_000;

function syntaxError(message = SYNTAX): Error {
  return toolError(message, 'SyntaxError');
}

function asFloat(n: PyNum): number {
  if ('float' in n) return n.float;
  const f = Number(n.int);
  if (!Number.isFinite(f)) throw toolError('int too large to convert to float', 'OverflowError');
  return f;
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (c === ' ') {
      i++;
    } else if (/[0-9.]/.test(c)) {
      const m = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)/.exec(text.slice(i));
      if (!m) throw syntaxError();
      const literal = m[0];
      if (!literal.includes('.') && /^0+[1-9]/.test(literal)) {
        throw syntaxError(
          'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)',
        );
      }
      tokens.push(literal);
      i += literal.length;
    } else if ((c === '*' || c === '/') && text[i + 1] === c) {
      tokens.push(c + c);
      i += 2;
    } else {
      tokens.push(c);
      i++;
    }
  }
  return tokens;
}

function binary(op: string, a: PyNum, b: PyNum): PyNum {
  if ('int' in a && 'int' in b && op !== '/') return intBinary(op, a.int, b.int);
  if (op === '**' && 'int' in a && 'int' in b) return { float: floatPower(asFloat(a), asFloat(b)) };
  const x = asFloat(a);
  const y = asFloat(b);
  const bothInt = 'int' in a && 'int' in b;
  switch (op) {
    case '+':
      return { float: x + y };
    case '-':
      return { float: x - y };
    case '*':
      return { float: x * y };
    case '/':
      if (y === 0)
        throw toolError(bothInt ? 'division by zero' : 'float division by zero', 'ZeroDivisionError');
      return { float: x / y };
    case '//':
      return { float: floatFloorDiv(x, y) };
    default:
      return { float: floatPower(x, y) };
  }
}

function intBinary(op: string, a: bigint, b: bigint): PyNum {
  switch (op) {
    case '+':
      return { int: a + b };
    case '-':
      return { int: a - b };
    case '*':
      return { int: a * b };
    case '//': {
      if (b === 0n) throw toolError('integer division or modulo by zero', 'ZeroDivisionError');
      const q = a / b;
      return { int: a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q };
    }
    default: {
      if (b < 0n) return { float: floatPower(asFloat({ int: a }), asFloat({ int: b })) };
      const bits = BigInt(a < 0n ? -a : a).toString(2).length;
      if (a !== 0n && a !== 1n && a !== -1n && BigInt(bits) * b > BigInt(MAX_POWER_BITS)) {
        throw toolError('exponent too large', 'OverflowError');
      }
      return { int: a ** b };
    }
  }
}

/** CPython's float floor division (float_floor_div). */
function floatFloorDiv(x: number, y: number): number {
  if (y === 0) throw toolError('float floor division by zero', 'ZeroDivisionError');
  let mod = x % y;
  let div = (x - mod) / y;
  if (mod !== 0) {
    if (y < 0 !== mod < 0) {
      mod += y;
      div -= 1;
    }
  }
  if (div === 0) {
    const q = x / y;
    return q < 0 || Object.is(q, -0) ? -0 : 0;
  }
  let floor = Math.floor(div);
  if (div - floor > 0.5) floor += 1;
  return floor;
}

/** CPython's float power, as far as the calculator reaches it. */
function floatPower(x: number, y: number): number {
  if (x === 0 && y < 0) throw toolError('0.0 cannot be raised to a negative power', 'ZeroDivisionError');
  if (x < 0 && !Number.isInteger(y)) {
    // Python gives a complex number, which float() refuses.
    throw toolError("float() argument must be a string or a real number, not 'complex'", 'TypeError');
  }
  const r = x ** y;
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) {
    throw toolError("(34, 'Numerical result out of range')", 'OverflowError');
  }
  return r;
}

/** A recursive-descent parser and evaluator of Python's grammar for these tokens. */
class Evaluator {
  private at = 0;
  constructor(private readonly tokens: readonly string[]) {}

  run(): PyNum {
    if (this.tokens.length === 0) throw syntaxError();
    const value = this.sum();
    if (this.peek() === ')') throw syntaxError("unmatched ')' (<string>, line 1)");
    if (this.at !== this.tokens.length) throw syntaxError();
    return value;
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  private sum(): PyNum {
    let value = this.term();
    for (let op = this.peek(); op === '+' || op === '-'; op = this.peek()) {
      this.at++;
      value = binary(op, value, this.term());
    }
    return value;
  }

  private term(): PyNum {
    let value = this.factor();
    for (let op = this.peek(); op === '*' || op === '/' || op === '//'; op = this.peek()) {
      this.at++;
      value = binary(op, value, this.factor());
    }
    return value;
  }

  private factor(): PyNum {
    const op = this.peek();
    if (op === '+' || op === '-') {
      this.at++;
      const v = this.factor();
      if (op === '+') return v;
      return 'int' in v ? { int: -v.int } : { float: -v.float };
    }
    return this.power();
  }

  private power(): PyNum {
    const base = this.primary();
    if (this.peek() !== '**') return base;
    this.at++;
    return binary('**', base, this.factor());
  }

  private primary(): PyNum {
    const value = this.atom();
    if (this.peek() === '(') {
      // A call such as `2(3)`: Python evaluates the argument, then finds the number is not callable.
      this.at++;
      if (this.peek() !== ')') this.sum();
      if (this.peek() !== ')') throw syntaxError();
      this.at++;
      throw toolError(`'${'int' in value ? 'int' : 'float'}' object is not callable`, 'TypeError');
    }
    return value;
  }

  private atom(): PyNum {
    const token = this.peek();
    if (token === undefined) throw syntaxError();
    if (token === '(') {
      this.at++;
      if (this.peek() === ')') throw syntaxError(); // `()` is a tuple in Python: not ported
      const inner = this.sum();
      if (this.peek() === undefined) throw syntaxError("'(' was never closed (<string>, line 1)");
      if (this.peek() !== ')') throw syntaxError();
      this.at++;
      return inner;
    }
    if (/^[0-9.]/.test(token)) {
      this.at++;
      return token.includes('.') ? { float: Number(token) } : { int: BigInt(token) };
    }
    throw syntaxError();
  }
}

/**
 * τ²-bench's `calculate(expression)`: `str(round(float(eval(expression)), 2))` for an expression of
 * digits, `+ - * / ( ) .` and spaces, with Python's semantics: integers are exact until a `/`, `//`
 * floors, `**` is power (right-associative, binding tighter than a unary minus on its left), and the
 * result is printed as Python prints a float (`4.0`, `1e+16`).
 *
 * @throws RetailError `retail.tool_error` with the benchmark's message: `Invalid characters in
 *   expression`, or the Python exception's text (`division by zero`, `float division by zero`,
 *   `integer division or modulo by zero`, `float floor division by zero`, ...). Known differences
 *   from CPython, all on inputs no task uses: an unclosed `(` and an unmatched `)` read as in CPython, every other syntax error
 *   reads `invalid syntax (<string>, line 1)` (CPython sometimes says more); an empty `()` (a tuple in Python) is a syntax error here;
 *   `int ** int` above 100,000 bits fails with `exponent too large`; a float `**` may differ from the C
 *   library's `pow` in the last bit.
 */
export function pyCalculate(expression: string): string {
  for (const c of expression) {
    if (!ALLOWED.has(c)) throw toolError('Invalid characters in expression');
  }
  const value = new Evaluator(tokenize(expression)).run();
  return pyFloatRepr(pyRound2(asFloat(value)));
}
