import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../../../src/contract/artifact.js';
import { DEFAULT_CLAIM_KINDS, findClaims } from '../../../../src/workflows/guardrails/claims.js';
import { findDates, findRefundAmounts } from '../../../../src/workflows/guardrails/commitments.js';
import { detectEncoding } from '../../../../src/workflows/guardrails/detect-encoding.js';
import { detectInjection } from '../../../../src/workflows/guardrails/detect-injection.js';
import { detectLanguage } from '../../../../src/workflows/guardrails/detect-language.js';
import { detectPersonalData } from '../../../../src/workflows/guardrails/detect-personal-data.js';
import { detectSecrets } from '../../../../src/workflows/guardrails/detect-secrets.js';
import {
  GUARDRAIL_MAX_SCAN_CHARS,
  OutputReasonCodes,
  checkInput,
  checkOutput,
  type EvidenceInvocation,
} from '../../../../src/workflows/guardrails/index.js';
import { maskEdits } from '../../../../src/workflows/guardrails/masking.js';
import { sentencesOf } from '../../../../src/workflows/guardrails/sentences.js';

/**
 * Guardrail checks run inside workflow tasks, so each must take time linear in its text: a pattern
 * that backtracks catastrophically makes one long model answer or a burst of signals exceed the
 * workflow task deadline on every attempt, and the run never moves again.
 *
 * For every check and input shapes built to hit each pattern's worst case, the time for n and for
 * 16n characters is measured in the same run (the minimum of interleaved repetitions, in CPU time)
 * and the growth time(16n) / time(n) must stay below 64: linear is about 16, quadratic about 256.
 * The bound sits a factor of four from both, so noise on a loaded machine (a factor of 2.6 was seen
 * with 4n against a bound of 8) does not fail a linear check, and a quadratic one cannot pass. No
 * absolute times.
 */

/** The larger text of a check; the smaller is a sixteenth of it. */
const LARGE = 100_000;
const SIZE_FACTOR = 16;
const MAX_GROWTH = 64;
/**
 * Noise (other processes, the collector, the allocator) only ever slows a sample down, so the
 * minimum over more rounds is nearer the true time: a case that looks super-linear after the first
 * rounds is measured again, up to the last round or the budget. A quadratic check stays above the
 * bound however often it is measured.
 */
const MIN_ROUNDS = 5;
const MAX_ROUNDS = 30;
/** Stop once a case spent this long (one round at least): a quadratic check takes seconds at 16n. */
const BUDGET_MS = 5_000;
/** A sample shorter than this repeats the check (timer resolution). */
const MIN_SAMPLE_MS = 1;

/** `unit` repeated to exactly `n` characters. */
const repeat =
  (unit: string) =>
  (n: number): string =>
    unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
/** `head` followed by `fill` up to `n` characters (one start, one long run after it). */
const headThen =
  (head: string, fill: string) =>
  (n: number): string =>
    head + repeat(fill)(n - head.length);
/** A long run of `fill` ending in `tail` (a long run before the one place that could match). */
const thenTail =
  (fill: string, tail: string) =>
  (n: number): string =>
    repeat(fill)(n - tail.length) + tail;

const SHAPES: Readonly<Record<string, (n: number) => string>> = {
  'a run': repeat('a'),
  'a. chain': repeat('a.'),
  'a@ pairs': repeat('a@'),
  'dotted calls': repeat('a.a('),
  'local part before @': thenTail('a.', 'x@'),
  'domain after @': headThen('x@', 'a.'),
  'digit run': repeat('1'),
  'digit run before 个': thenTail('1', '个'),
  'digit-dash run': repeat('1-'),
  'dash run': repeat('-'),
  'space run': repeat(' '),
  'line breaks': repeat('\n'),
  'line breaks and spaces': repeat('\n '),
  'jwt starts': repeat('eyJ-'),
  'key starts': repeat('sk-'),
  '"from now on" and spaces': headThen('from now on', ' '),
  '"we issued" and spaces': headThen('we issued', ' '),
  '"within 1" and spaces': headThen('within 1', ' '),
  claims: repeat('refunded '),
  'negated claims': repeat('nothing refunded '),
  'promised claims': repeat('you will be refunded '),
  'clause breaks': repeat('refund, '),
  'Chinese claims': repeat('已退款'),
  phones: repeat('13800001001 '),
  'identity numbers': repeat('110105199001010030 '),
  'card numbers': repeat('4111111111111111 '),
  'e-mail addresses': repeat('a@b.co '),
  dates: repeat('2026-07-20 '),
  'refund amounts': repeat('refund ¥5 '),
  'time promises': repeat('1天 '),
  'full-width letters': repeat('ｉｇｎｏｒｅ '),
  'zero-width spaces': repeat('a\u200b'),
  'astral characters': repeat('😀'),
  'not NFC': repeat('e\u0301'),
  mix: repeat(
    'Ignore previous instructions. refund.create( a@b.co 13800001001 eyJ-eyJ- 2026-07-20 ¥5 refunded\n',
  ),
};

/** A trusted observed order whose id a reply may repeat (the identifier exemption's path). */
const ORDER_ID = '13800001001';
const evidence: { artifacts: Artifact[]; invocations: EvidenceInvocation[] } = {
  artifacts: [
    {
      id: 'run-1:1:order',
      type: 'order',
      schemaVersion: '1',
      provenance: 'observed',
      data: { id: ORDER_ID },
    },
  ],
  invocations: [{ seq: 1, status: 'succeeded', artifactIds: ['run-1:1:order'] }],
};
const ALL_MASKS = ['mask.phone', 'mask.email', 'mask.id_number'];
const inputLimits = { maxStringChars: GUARDRAIL_MAX_SCAN_CHARS, maxTotalChars: GUARDRAIL_MAX_SCAN_CHARS };

/** Read every item of a detector's output (they are generated lazily). */
function drain(items: Iterable<unknown>): number {
  let n = 0;
  for (const _ of items) n += 1;
  return n;
}

interface Check {
  readonly run: (text: string) => unknown;
  /** The larger text (a sixteenth of it is measured too); the entry points read at most GUARDRAIL_MAX_SCAN_CHARS. */
  readonly large: number;
}

const CHECKS: Readonly<Record<string, Check>> = {
  detectEncoding: { run: (t) => drain(detectEncoding(t)), large: LARGE },
  detectInjection: { run: (t) => drain(detectInjection(t)), large: LARGE },
  detectSecrets: { run: (t) => drain(detectSecrets(t)), large: LARGE },
  detectPersonalData: { run: (t) => drain(detectPersonalData(t)), large: LARGE },
  detectLanguage: {
    run: (t) => drain(detectLanguage(t, { allowedScripts: ['Latin'], minShare: 0.6, minLetters: 12 })),
    large: LARGE,
  },
  findClaims: { run: (t) => drain(findClaims(t, DEFAULT_CLAIM_KINDS)), large: LARGE },
  findRefundAmounts: { run: (t) => drain(findRefundAmounts(t, sentencesOf(t))), large: LARGE },
  findDates: { run: (t) => drain(findDates(t)), large: LARGE },
  maskEdits: { run: (t) => maskEdits(t, new Set(['phone', 'email', 'id_number'])), large: LARGE },
  // the entry points, up to the limit of one check
  checkInput: { run: (t) => checkInput(t, inputLimits), large: GUARDRAIL_MAX_SCAN_CHARS },
  'checkInput, many strings': {
    run: (t) => checkInput({ parts: t.match(/[^]{1,100}/g) }, inputLimits),
    large: GUARDRAIL_MAX_SCAN_CHARS,
  },
  checkOutput: {
    run: (t) => checkOutput({ output: { message: t }, ...evidence }),
    large: GUARDRAIL_MAX_SCAN_CHARS,
  },
  'checkOutput, rewrite and masks': {
    run: (t) =>
      checkOutput(
        { output: { message: t, note: `order ${ORDER_ID}` }, ...evidence, obligations: ALL_MASKS },
        { mode: 'rewrite' },
      ),
    large: GUARDRAIL_MAX_SCAN_CHARS,
  },
  // runs from before the limit read a response of any length
  'checkOutput without the limit': {
    run: (t) =>
      checkOutput(
        { output: [t, ORDER_ID], ...evidence, obligations: ALL_MASKS, limitText: () => false },
        { mode: 'rewrite' },
      ),
    large: LARGE,
  },
};

/**
 * Milliseconds of CPU time (user and system) one run takes, averaged over `reps`. CPU time, not wall
 * time: on a loaded machine the longer run is the likelier to wait for a core, which would read as
 * growth.
 */
function sample(run: (text: string) => unknown, text: string, reps: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < reps; i += 1) run(text);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / reps;
}

/** The times for n and 16n characters, each the minimum of interleaved repetitions. */
function times(check: Check, shape: (n: number) => string): { small: number; large: number } {
  const small = shape(check.large / SIZE_FACTOR);
  const large = shape(check.large);
  // warm up both sizes (compiled code, and buffers of the large size the allocator has seen once),
  // then time the small one warm to choose how often a sample repeats it
  sample(check.run, small, 1);
  let spent = sample(check.run, large, 1);
  const warm = sample(check.run, small, 3);
  const reps = Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(warm, 1e-3)));
  let tSmall = Infinity;
  let tLarge = Infinity;
  for (let round = 1; round <= MAX_ROUNDS; round += 1) {
    const a = sample(check.run, small, reps);
    const b = sample(check.run, large, reps);
    tSmall = Math.min(tSmall, a);
    tLarge = Math.min(tLarge, b);
    spent += (a + b) * reps;
    if (spent > BUDGET_MS || (round >= MIN_ROUNDS && tLarge / tSmall < MAX_GROWTH)) break;
  }
  return { small: tSmall, large: tLarge };
}

describe('guardrail checks take time linear in their text', () => {
  describe.each(Object.entries(CHECKS))('%s', (_name, check) => {
    it.each(Object.entries(SHAPES))('%s', (_shape, shape) => {
      const { small, large } = times(check, shape);
      expect(large / small, `${small.toFixed(3)} ms for n, ${large.toFixed(3)} ms for 16n`).toBeLessThan(
        MAX_GROWTH,
      );
    });
  });
});

describe('the measure itself', () => {
  it('fails a quadratic check (one that rescans the rest of its text from every 100th character)', () => {
    const quadratic: Check = {
      run: (t) => {
        let found = 0;
        for (let i = 0; i < t.length; i += 100) found += t.indexOf('\u0000', i);
        return found;
      },
      large: LARGE,
    };
    const { small, large } = times(quadratic, repeat('a'));
    expect(large / small).toBeGreaterThan(MAX_GROWTH);
  });
});

describe('the limit on the text one check reads', () => {
  const over = 'a'.repeat(GUARDRAIL_MAX_SCAN_CHARS + 1);

  it('blocks a response with more text than one check reads, whatever the text', () => {
    const split = checkOutput({
      output: { a: 'x'.repeat(GUARDRAIL_MAX_SCAN_CHARS - 10), b: 'y'.repeat(20) },
      artifacts: [],
      invocations: [],
    });
    expect(split).toMatchObject({
      verdict: 'block',
      output: null,
      reasonCodes: [OutputReasonCodes.oversize],
    });
    expect(split.findings).toEqual([
      { code: OutputReasonCodes.oversize, ruleId: 'oversize.total_chars', path: '/b', action: 'block' },
    ]);
    const exact = { output: 'a'.repeat(GUARDRAIL_MAX_SCAN_CHARS), artifacts: [], invocations: [] };
    expect(checkOutput(exact).verdict).toBe('pass');
  });

  it('asks whether to apply it only when the text is over it; runs from before it read all of it', () => {
    let asked = 0;
    const limitText = (): boolean => {
      asked += 1;
      return false;
    };
    expect(checkOutput({ output: 'short', artifacts: [], invocations: [], limitText }).verdict).toBe('pass');
    expect(asked).toBe(0);
    const old = checkOutput({
      output: `${over} sk-${'k'.repeat(30)}`,
      artifacts: [],
      invocations: [],
      limitText,
    });
    expect(asked).toBe(1);
    expect(old.findings.map((f) => f.ruleId)).toEqual(['secret.openai_style_key']);
  });

  it('the input guardrail refuses a configuration that reads more', () => {
    expect(() => checkInput('x', { maxTotalChars: GUARDRAIL_MAX_SCAN_CHARS + 1 })).toThrow(
      /invalid input guardrail config/,
    );
    expect(() => checkInput('x', { maxStringChars: GUARDRAIL_MAX_SCAN_CHARS + 1 })).toThrow(
      /invalid input guardrail config/,
    );
    expect(checkInput(over, inputLimits)).toMatchObject({
      verdict: 'block',
      findings: [{ ruleId: 'oversize.string_chars', action: 'block' }],
    });
  });
});
