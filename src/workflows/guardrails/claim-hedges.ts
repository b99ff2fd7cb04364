import type { Span } from './finding.js';
import { IntList } from './int-list.js';
import { asciiLower, hasWordAt, isSpace, isWordChar } from './text-chars.js';

/** Negation and condition words: "nothing was refunded", "if the refund was made". */
const NEGATION_WORDS = 'not no never nothing none cannot unable if unless whether'.split(' ');
/** Two-word negations, any white space between: "yet to", "failed to". */
const NEGATION_PAIRS: readonly (readonly [string, string])[] = [
  ['yet', 'to'],
  ['failed', 'to'],
];
const NEGATION_EN = new RegExp(
  `\\b(?:${[...NEGATION_WORDS, ...NEGATION_PAIRS.map(([a, b]) => `${a}\\s+${b}`)].join('|')})\\b|n't\\b`,
  'gi',
);
/** Chinese negation and condition words, matched anywhere (no word boundaries in Chinese). */
const NEGATION_ZH_WORDS = '未 没有 没 不 无法 尚未 并未 失败 如果 若 是否 能否'.split(' ');
const NEGATION_ZH = new RegExp(NEGATION_ZH_WORDS.join('|'), 'g');
/** A modal right before the claim makes it a promise, not a report: "you will (soon) be refunded". */
const MODALS = 'will would can could may might should shall'.split(' ');
const CLAUSE_BREAK = /[,;:，；：]/g;

/**
 * Whether a claim match in `text` is hedged rather than reported: its clause (from the last `,;:，；：`
 * before it in its sentence, or the sentence start, to the end of the match) holds a negation or a
 * condition (`NEGATION_EN`: "not", "nothing", "if", "yet to", "n't"…; `NEGATION_ZH`: 未, 没有, 如果…),
 * or the text before it in the sentence ends with a modal (`will|would|can|could|may|might|should|
 * shall` or `'ll`, then white space, an optional word and an optional `be`, each followed by white
 * space: "you will soon be ").
 *
 * These are the tests `NEGATION_EN.test(clause) || NEGATION_ZH.test(clause) ||
 * /(?:\b(?:will|…|shall)|'ll)\s+(?:\w+\s+)?(?:be\s+)?$/i.test(before)`, answered without reading the
 * clause again for every match (which is O(n²) for many claims in one long sentence): the breaks
 * and the negations of the whole text are found once, in linear time; a lookup is a binary search,
 * plus the few characters around the end of the match where the clause, cut there, can end in a
 * negation the whole text does not have (`no|thing`), and the few words before the match that a
 * modal can stand in. Never throws.
 */
export function claimHedges(text: string): (sentence: Span, index: number, end: number) => boolean {
  const breaks = positions(text, CLAUSE_BREAK);
  const en = matchSpans(text, NEGATION_EN);
  const zh = matchSpans(text, NEGATION_ZH);
  return (sentence, index, end) => {
    const lastBreak = breaks.at(breaks.firstAtLeast(index) - 1);
    const clause = lastBreak !== undefined && lastBreak >= sentence.start ? lastBreak + 1 : sentence.start;
    return (
      negationWithin(en, clause, end) ||
      negationWithin(zh, clause, end) ||
      endsInNegationWord(text, clause, end) ||
      NEGATION_ZH_WORDS.some((w) => end - w.length >= clause && text.startsWith(w, end - w.length)) ||
      modalBefore(text, sentence.start, index)
    );
  };
}

interface Spans {
  readonly starts: IntList;
  readonly ends: IntList;
}

function positions(text: string, pattern: RegExp): IntList {
  const out = new IntList();
  for (const m of text.matchAll(pattern)) out.push(m.index);
  return out;
}

function matchSpans(text: string, pattern: RegExp): Spans {
  const starts = new IntList();
  const ends = new IntList();
  for (const m of text.matchAll(pattern)) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
  }
  return { starts, ends };
}

/**
 * True when one of the text's negation matches lies inside `[from, to)`. Negation matches never
 * overlap, so the first one starting at `from` or later ends first.
 */
function negationWithin(spans: Spans, from: number, to: number): boolean {
  const end = spans.ends.at(spans.starts.firstAtLeast(from));
  return end !== undefined && end <= to;
}

/**
 * True when the clause `[from, to)`, cut at `to` in the middle of a word, ends in an English negation
 * the whole text does not hold there (`\b` at the end of a string holds after any word character):
 * a negation word or pair, or `n't`.
 */
function endsInNegationWord(text: string, from: number, to: number): boolean {
  if (to >= text.length || !isWordChar(text.charCodeAt(to))) return false;
  if (to - 3 >= from && hasWordAt(text, to - 3, "n't")) return true;
  const word = wordBefore(text, from, to);
  if (word === undefined) return false;
  if (NEGATION_WORDS.includes(word.text)) return true;
  let gap = word.start;
  while (gap > from && isSpace(text.charCodeAt(gap - 1))) gap -= 1;
  if (gap === word.start) return false;
  const first = wordBefore(text, from, gap);
  return first !== undefined && NEGATION_PAIRS.some(([a, b]) => a === first.text && b === word.text);
}

/** Longest negation word: a longer word cannot be one. */
const MAX_WORD = Math.max(...[...NEGATION_WORDS, ...NEGATION_PAIRS.flat()].map((w) => w.length));

/**
 * The whole word (`\w` run, lower-cased) ending at `to`, cut at `from`; undefined when there is none
 * or it is longer than any negation word.
 */
function wordBefore(text: string, from: number, to: number): { start: number; text: string } | undefined {
  let start = to;
  while (start > from && isWordChar(text.charCodeAt(start - 1))) {
    start -= 1;
    if (to - start > MAX_WORD) return undefined;
  }
  if (start === to) return undefined;
  let word = '';
  for (let k = start; k < to; k += 1) word += String.fromCharCode(asciiLower(text.charCodeAt(k)));
  return { start, text: word };
}

/**
 * True when `text[from, to)` ends with a modal, white space, an optional `\w+` word and white space,
 * an optional `be` and white space. Read backwards over at most three words and the white space
 * between them.
 */
function modalBefore(text: string, from: number, to: number): boolean {
  const gap1 = spaceStart(text, from, to);
  if (gap1 === to || gap1 === from) return false;
  if (endsInModal(text, from, gap1)) return true;
  const word1 = wordOnly(text, from, gap1);
  if (word1 === undefined) return false;
  const gap2 = spaceStart(text, from, word1);
  if (gap2 === from) return false;
  if (endsInModal(text, from, gap2)) return true;
  if (gap1 - word1 !== 2 || !hasWordAt(text, word1, 'be')) return false;
  const word2 = wordOnly(text, from, gap2);
  if (word2 === undefined) return false;
  const gap3 = spaceStart(text, from, word2);
  return gap3 > from && endsInModal(text, from, gap3);
}

/** Where the white space run ending at `to` starts (not before `from`). */
function spaceStart(text: string, from: number, to: number): number {
  let at = to;
  while (at > from && isSpace(text.charCodeAt(at - 1))) at -= 1;
  return at;
}

/**
 * The start of the `\w+` word ending at `to` when it is a whole white-space-separated token with
 * white space before it; undefined otherwise.
 */
function wordOnly(text: string, from: number, to: number): number | undefined {
  let at = to;
  while (at > from && isWordChar(text.charCodeAt(at - 1))) at -= 1;
  return at < to && at > from && isSpace(text.charCodeAt(at - 1)) ? at : undefined;
}

/** True when the token ending at `to` ends with `'ll`, or with a modal that starts a word (or `from`). */
function endsInModal(text: string, from: number, to: number): boolean {
  if (to - 3 >= from && hasWordAt(text, to - 3, "'ll")) return true;
  return MODALS.some((m) => {
    const at = to - m.length;
    return at >= from && hasWordAt(text, at, m) && (at === from || !isWordChar(text.charCodeAt(at - 1)));
  });
}
