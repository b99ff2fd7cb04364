import { describe, expect, it } from 'vitest';
import { DEFAULT_CLAIM_KINDS, findClaims } from '../../src/workflows/guardrails/claims.js';
import { findDates, findRefundAmounts } from '../../src/workflows/guardrails/commitments.js';
import { taintDigestsOf } from '../../src/workflows/guardrails/data-taint.js';
import { detectEncoding } from '../../src/workflows/guardrails/detect-encoding.js';
import { detectInjection } from '../../src/workflows/guardrails/detect-injection.js';
import { detectLanguage } from '../../src/workflows/guardrails/detect-language.js';
import { detectPersonalData } from '../../src/workflows/guardrails/detect-personal-data.js';
import { detectSecrets } from '../../src/workflows/guardrails/detect-secrets.js';
import { checkInput, checkOutput } from '../../src/workflows/guardrails/index.js';
import { maskEdits } from '../../src/workflows/guardrails/masking.js';
import { sentencesOf } from '../../src/workflows/guardrails/sentences.js';

/**
 * Issue 35, "Bounded and linear everywhere": every scan of untrusted text inside the workflow or a
 * worker runs in linear time. For each rule of each detector, inputs built to hit that rule's worst
 * case (repeated prefixes, near-misses, nested starts like `eyJeyJ…`, long runs with no terminator)
 * are scanned at 32 KiB and at 256 KiB, in the same test, and the growth must stay within
 * {@link MAX_GROWTH}: linear is 8, quadratic 64. A ratio, never an absolute time: the 32 KiB scan of
 * the same rule and shape is the baseline. Times are CPU time (user + system), the minimum of
 * interleaved rounds, since noise only ever slows a sample down.
 */

const KiB = 1024;
const SMALL = 32 * KiB;
const LARGE = 256 * KiB;
/** 8 (linear) times a slack of 3 for a shared, loaded machine; a quadratic rule grows 64-fold. */
const MAX_GROWTH = 24;
const MIN_ROUNDS = 3;
const MAX_ROUNDS = 15;
/** Stop measuring a shape once it used this much CPU (a quadratic shape takes seconds at 256 KiB). */
const BUDGET_MS = 4_000;
/** A small sample shorter than this repeats the scan (timer resolution). */
const MIN_SAMPLE_MS = 2;

type Shape = (n: number) => string;
/** `unit` repeated to exactly `n` characters. */
const rep =
  (unit: string): Shape =>
  (n) =>
    unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
/** `head`, then `fill` up to `n` characters: one start, then a long run after it. */
const head =
  (h: string, fill: string): Shape =>
  (n) =>
    h + rep(fill)(n - h.length);
/** A long run of `fill`, then `tail`: the one place that could match comes last. */
const tail =
  (fill: string, t: string): Shape =>
  (n) =>
    rep(fill)(n - t.length) + t;

const SPACES = ' \t';
const SEG = 'abcdefghij';

/** Adversarial shapes per detector and rule id. */
const RULES: Readonly<Record<string, Readonly<Record<string, readonly Shape[]>>>> = {
  detectSecrets: {
    'secret.private_key': [rep('-----BEGIN A '), head('-----BEGIN ', 'A '), rep('-----BEGIN PRIVATE ')],
    'secret.openai_style_key': [rep('sk-'), rep('sk-proj-'), rep(`sk-${'a'.repeat(19)} `)],
    'secret.stripe_key': [rep('sk_live_'), rep(`rk_test_${'a'.repeat(15)} `)],
    'secret.aws_access_key': [rep('AKIA'), rep(`ASIA${'A'.repeat(15)} `), rep(`AKIA${'A'.repeat(17)}`)],
    'secret.github_token': [rep('ghp_'), rep('github_pat_'), rep(`gho_${'a'.repeat(29)} `)],
    'secret.slack_token': [rep('xoxb-'), rep(`xoxp-${'a'.repeat(9)} `)],
    'secret.google_api_key': [rep('AIza'), rep(`AIza${'a'.repeat(34)} `)],
    'secret.jwt': [
      rep('eyJ'),
      rep('eyJ-'),
      head('eyJ', 'a'),
      rep('.eyJ'),
      rep(`eyJ${SEG}.`),
      rep(`eyJ${SEG}.eyJ${SEG}.`),
      rep(`eyJ${SEG}.eyJ${SEG}.eyJ`),
    ],
    'secret.bearer_token': [rep('bearer '), head('Bearer', SPACES), rep(`bearer ${'a'.repeat(19)} `)],
    'secret.credential_assignment': [
      rep('password'),
      rep('password='),
      head('password', SPACES),
      head('api_key:', SPACES),
      rep('secret: "'),
    ],
  },
  detectInjection: {
    'injection.ignore_previous.en': [rep('ignore all '), head('ignore', SPACES), rep('ignore all all all ')],
    'injection.ignore_previous.zh': [rep('忽略'), rep('忽略之前的所有')],
    'injection.system_prompt.en': [rep('system '), head('system', SPACES), rep('reveal your ')],
    'injection.system_prompt.zh': [rep('系统'), rep('输出你的')],
    'injection.new_instructions': [
      head('from now on', SPACES),
      rep('from now on, '),
      head('new instructions', SPACES),
      head('从现在开始，', ' '),
    ],
    'injection.role_marker': [rep('\n'), rep('\n '), head('\n', SPACES), rep('\nsystem '), rep('<|im_')],
    'jailbreak.role_play.en': [rep('you are '), head('you are no', SPACES), rep('act as no ')],
    'jailbreak.named.en': [rep('do anything '), head('dan', SPACES)],
    'jailbreak.role_play.zh': [rep('扮演'), rep('假装你是没有')],
    'tool_call.dotted_call': [rep('a.'), rep('a.a('), head('1.', 'a.'), rep('ab_1.'), rep('a-a.')],
    'tool_call.json_envelope': [rep('"tool_call"'), head('"tool_calls"', SPACES), rep('<tool_')],
  },
  detectPersonalData: {
    'pii.cn_id_number': [rep('1'), rep('110105199001010030 '), rep('11010519900101003')],
    'pii.card_number': [rep('1 '), rep('1-'), rep('4111111111111111 ')],
    'pii.phone.cn_mobile': [rep('+86 138'), rep('1380000100'), rep('138-0000-')],
    'pii.phone.e164': [rep('+1 '), rep('+1-2'), rep('+12345678')],
    'pii.phone.nanp': [rep('(555) '), rep('555-'), rep('555-123-')],
    'pii.email': [rep('a@'), tail('a.', 'x@'), head('x@', 'a.'), rep('a@b.'), rep('a.b@1.')],
  },
  detectEncoding: {
    'encoding.lone_surrogate': [rep('\ud800'), rep('\udc00a')],
    'encoding.control_char': [rep('\u200b'), rep('a\u0000')],
    'encoding.not_nfc': [rep('e\u0301'), rep('한'), rep('\u0301')],
  },
  detectLanguage: { 'language.script_share': [rep('a'), rep('ж'), rep('😀')] },
  findClaims: {
    'claim.refund': [
      rep('refund '),
      head('refund has been', SPACES),
      rep('refund has '),
      head('we issued a', SPACES),
      rep('i '),
      rep('nothing refunded '),
      rep('you will be refunded '),
      head('will', SPACES),
      tail('a', ' refunded'),
      rep('已退款'),
    ],
    'claim.branch_pushed': [
      rep('branch '),
      head('branch has been', SPACES),
      rep('pushed '),
      head('pushed', SPACES),
    ],
    'claim.deployed': [rep('has been '), head('has been', SPACES), rep('deployment ')],
  },
  findRefundAmounts: {
    'commitment.refund_amount': [
      rep('refund ¥5 '),
      head('refund $', '1'),
      head('refund ', '1'),
      head('refund 1', ',000'),
      rep('refund 1,0'),
    ],
  },
  findDates: {
    'commitment.date.absolute': [
      rep('1'),
      rep('2026-'),
      rep('2026年1'),
      rep('jan '),
      head('jan', SPACES),
      head('jan', 'a'),
    ],
    'commitment.date.relative': [
      head('within 1', SPACES),
      rep('within 1 '),
      rep('by next '),
      rep('1 - '),
      head('1', SPACES),
      rep('明天'),
    ],
  },
  maskEdits: {
    'mask.phone': [rep('+86 138'), rep('1380000100'), rep('+1 ')],
    'mask.email': [rep('a@'), tail('a.', 'x@'), head('x@', 'a.')],
    'mask.id_number': [rep('1'), rep('110105199001010030 ')],
  },
};

/** Read every item of a detector's output (they are generated lazily). */
function drain(items: Iterable<unknown>): number {
  let n = 0;
  for (const _ of items) n += 1;
  return n;
}

const SCANS: Readonly<Record<string, (text: string) => unknown>> = {
  detectSecrets: (t) => drain(detectSecrets(t)),
  detectInjection: (t) => drain(detectInjection(t)),
  detectPersonalData: (t) => drain(detectPersonalData(t)),
  detectEncoding: (t) => drain(detectEncoding(t)),
  detectLanguage: (t) =>
    drain(detectLanguage(t, { allowedScripts: ['Latin'], minShare: 0.6, minLetters: 12 })),
  findClaims: (t) => drain(findClaims(t, DEFAULT_CLAIM_KINDS)),
  findRefundAmounts: (t) => drain(findRefundAmounts(t, sentencesOf(t))),
  findDates: (t) => drain(findDates(t)),
  maskEdits: (t) => maskEdits(t, new Set(['phone', 'email', 'id_number'])),
};

/** CPU milliseconds of one scan of `text`, averaged over `reps`. */
function sample(scan: (text: string) => unknown, text: string, reps: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < reps; i += 1) scan(text);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / reps;
}

/** The CPU time of a scan at 32 KiB and at 256 KiB of `shape`, each the minimum of interleaved rounds. */
function growth(scan: (text: string) => unknown, shape: Shape): { small: number; large: number } {
  const small = shape(SMALL);
  const large = shape(LARGE);
  sample(scan, small, 1);
  let spent = sample(scan, large, 1);
  const warm = sample(scan, small, 2);
  const reps = Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(warm, 1e-3)));
  let tSmall = Infinity;
  let tLarge = Infinity;
  for (let round = 1; round <= MAX_ROUNDS; round += 1) {
    const a = sample(scan, small, reps);
    const b = sample(scan, large, 1);
    tSmall = Math.min(tSmall, a);
    tLarge = Math.min(tLarge, b);
    spent += a * reps + b;
    if (spent > BUDGET_MS || (round >= MIN_ROUNDS && tLarge / tSmall <= MAX_GROWTH)) break;
  }
  return { small: tSmall, large: tLarge };
}

function expectLinear(scan: (text: string) => unknown, shapes: readonly Shape[]): void {
  for (const [i, shape] of shapes.entries()) {
    const { small, large } = growth(scan, shape);
    const what = `shape ${i} (${JSON.stringify(shape(24))}…): ${small.toFixed(2)} ms at 32 KiB, ${large.toFixed(2)} ms at 256 KiB`;
    expect(large / small, what).toBeLessThanOrEqual(MAX_GROWTH);
  }
}

describe('every guardrail rule scans 256 KiB of adversarial input in linear time', () => {
  for (const [detector, rules] of Object.entries(RULES)) {
    const scan = SCANS[detector]!;
    describe(detector, () => {
      it.each(Object.entries(rules))('%s', (_rule, shapes) => expectLinear(scan, shapes), 120_000);
    });
  }
});

describe('the capped scans stay linear on every shape above', () => {
  // the first shape of each rule: past the cap the work stays flat, so this bounds the rest
  const firsts = Object.values(RULES).flatMap((rules) => Object.values(rules).map((shapes) => shapes[0]!));
  const capped: Readonly<Record<string, (text: string) => unknown>> = {
    // the worker's taint scan of a tool result, and the workflow's scan of tool arguments
    taintDigestsOf: (t) => taintDigestsOf({ output: { text: t } }),
    checkInput: (t) => checkInput({ task: t }, { maxStringChars: 64 * KiB }),
    checkOutput: (t) => checkOutput({ output: { message: t }, artifacts: [], invocations: [] }),
  };
  it.each(Object.entries(capped))('%s', (_name, scan) => expectLinear(scan, firsts), 300_000);
});
