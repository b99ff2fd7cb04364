import { SubstringIndex } from './substring-index.js';
import type { Span } from './finding.js';
import type { RunEvidence } from './run-evidence.js';
import { TakenSpans } from './taken-spans.js';
import { collectTextLeaves } from './text-leaves.js';

/** A money amount in a refund context, in cents. */
export interface AmountHit {
  readonly span: Span;
  readonly cents: number;
}

const REFUND_CONTEXT = /refund|reimburs|退款|退还|退回|返还/i;
const NUMBER = String.raw`(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?`;
const AMOUNT_PATTERNS: readonly RegExp[] = [
  new RegExp(String.raw`(?:¥|￥|CNY|RMB|US\$|\$|USD|EUR|€)\s?${NUMBER}(?!\d)`, 'gi'),
  new RegExp(String.raw`(?<![\d.,])${NUMBER}\s?(?:元|块|CNY|RMB|USD|EUR|yuan|dollars?)`, 'gi'),
];

const toCents = (whole: string, frac: string | undefined): number =>
  Number(whole.replace(/,/g, '')) * 100 + Number((frac ?? '0').padEnd(2, '0'));

/**
 * Money amounts in sentences that speak of a refund ("refund", "退款", "退还"...), with a currency
 * sign or word. `sentences` are the spans of the string's sentences (disjoint, as `sentencesOf`
 * gives them). Linear in the length of `text`; never throws.
 */
export function* findRefundAmounts(text: string, sentences: Iterable<Span>): Generator<AmountHit> {
  const taken = new TakenSpans(text.length);
  for (const s of sentences) {
    const sentence = text.slice(s.start, s.end);
    if (!REFUND_CONTEXT.test(sentence)) continue;
    for (const re of AMOUNT_PATTERNS) {
      for (const m of sentence.matchAll(re)) {
        const span = { start: s.start + m.index, end: s.start + m.index + m[0].length };
        if (taken.overlaps(span)) continue;
        taken.take(span);
        yield { span, cents: toCents(m[1] ?? '0', m[2]) };
      }
    }
  }
}

/**
 * The largest refund amount (cents) the trusted evidence shows: the numeric `amountField` of trusted
 * observed artifacts of `types`. Undefined when there is none.
 */
export function observedRefundCents(
  evidence: RunEvidence,
  types: readonly string[],
  amountField: string,
): number | undefined {
  let best: number | undefined;
  for (const o of evidence.observed) {
    if (!types.includes(o.artifact.type)) continue;
    const data = o.artifact.data;
    const v =
      data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[amountField] : undefined;
    if (typeof v === 'number' && Number.isFinite(v)) best = best === undefined ? v : Math.max(best, v);
  }
  return best;
}

/** A date or a time promise found in a response. */
export interface DateHit {
  readonly span: Span;
  /** `absolute`: a calendar date; `relative`: a promise like "within 3 business days", "3个工作日内". */
  readonly kind: 'absolute' | 'relative';
  /** For absolute dates: year (if written), month, day. */
  readonly date?: { readonly year?: number; readonly month: number; readonly day: number };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const ABSOLUTE: readonly { re: RegExp; read: (m: RegExpMatchArray) => DateHit['date'] }[] = [
  {
    re: /(?<!\d)(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)/g,
    read: (m) => ({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }),
  },
  {
    re: /(\d{4})年(\d{1,2})月(\d{1,2})[日号]/g,
    read: (m) => ({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }),
  },
  { re: /(?<![\d年])(\d{1,2})月(\d{1,2})[日号]/g, read: (m) => ({ month: Number(m[1]), day: Number(m[2]) }) },
  {
    re: /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b/gi,
    read: (m) => ({
      ...(m[3] !== undefined ? { year: Number(m[3]) } : {}),
      month: MONTHS.indexOf((m[1] ?? '').toLowerCase()) + 1,
      day: Number(m[2]),
    }),
  },
];

const RELATIVE: readonly RegExp[] = [
  /\bwithin\s+\d+(?:\s*(?:-|to)\s*\d+)?\s+(?:business\s+|working\s+)?(?:days?|hours?|weeks?)\b/gi,
  /\bby\s+(?:tomorrow|tonight|next\s+(?:week|month|monday|tuesday|wednesday|thursday|friday)|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:day|week|month))\b/gi,
  // starts only at the first digit of a run: a later start reaches the same end, so it matches only
  // if the first did; without the lookbehind each start reads a long digit run to its end (O(n²))
  /(?<!\d)\d+(?:\s*[-~到至]\s*\d+)?\s*个?(?:工作日|自然日|天|小时|周)内?/g,
  /明天|后天|下周[一二三四五六日天]?|本周内|今天内/g,
];

/** Calendar dates and time promises in `text`. Linear in the length of `text`; never throws. */
export function* findDates(text: string): Generator<DateHit> {
  const taken = new TakenSpans(text.length);
  const valid = (d: DateHit['date']): boolean =>
    d !== undefined && d.month >= 1 && d.month <= 12 && d.day >= 1 && d.day <= 31;
  for (const { re, read } of ABSOLUTE) {
    for (const m of text.matchAll(re)) {
      const span = { start: m.index, end: m.index + m[0].length };
      const date = read(m);
      if (!valid(date) || taken.overlaps(span)) continue;
      taken.take(span);
      yield { span, kind: 'absolute', date };
    }
  }
  for (const re of RELATIVE) {
    for (const m of text.matchAll(re)) {
      const span = { start: m.index, end: m.index + m[0].length };
      if (taken.overlaps(span)) continue;
      taken.take(span);
      yield { span, kind: 'relative' };
    }
  }
}

/** What the evidence vouches for: calendar dates (ISO `YYYY-MM-DD` in trusted data or configured) and texts. */
export interface VouchedDates {
  readonly dates: readonly { year: number; month: number; day: number }[];
  /** Whitespace-free, lower-cased strings of trusted data and configured promises. */
  readonly texts: readonly string[];
  /** `month-day` and `year-month-day` of every date: an absolute hit is one lookup. */
  readonly dateKeys: ReadonlySet<string>;
  /** The texts as a phrase index: a relative hit is linear in its own length (substring-index.ts). */
  readonly phrases: SubstringIndex;
}

const squash = (s: string): string => s.replace(/\s+/g, '').toLowerCase();

/** Collect the dates and texts trusted artifacts' data (and `extra` configured facts) state. */
export function vouchedDates(
  evidence: RunEvidence,
  extraDates: readonly string[],
  extraTexts: readonly string[],
): VouchedDates {
  const dates: { year: number; month: number; day: number }[] = [];
  const texts: string[] = extraTexts.map(squash);
  const strings = [...extraDates];
  for (const a of [...evidence.observed, ...evidence.verified]) {
    for (const leaf of collectTextLeaves(a.artifact.data, { maxDepth: 16, maxStrings: 500 }).leaves) {
      strings.push(leaf.text);
      texts.push(squash(leaf.text));
    }
  }
  for (const s of strings) {
    for (const m of s.matchAll(/(?<!\d)(\d{4})-(\d{2})-(\d{2})/g))
      dates.push({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) });
  }
  const dateKeys = new Set<string>();
  for (const d of dates) {
    dateKeys.add(`${d.month}-${d.day}`);
    dateKeys.add(`${d.year}-${d.month}-${d.day}`);
  }
  return { dates, texts, dateKeys, phrases: new SubstringIndex(texts) };
}

/**
 * True when the evidence vouches for `hit` (found in `text`): an absolute date the evidence states
 * (the same month and day, and year when the hit names one), or a relative phrase some trusted text
 * contains. Linear in the hit's length (the keys and the phrase index are built once per check).
 */
export function isVouched(hit: DateHit, text: string, vouched: VouchedDates): boolean {
  if (hit.kind === 'absolute' && hit.date) {
    const d = hit.date;
    return vouched.dateKeys.has(
      d.year === undefined ? `${d.month}-${d.day}` : `${d.year}-${d.month}-${d.day}`,
    );
  }
  return vouched.phrases.has(squash(text.slice(hit.span.start, hit.span.end)));
}
