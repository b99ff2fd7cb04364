import { z } from 'zod';
import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import type { Detection } from './finding.js';
import { InputReasonCodes } from './reason-codes.js';

/** Unicode scripts a language check may allow. Built on first use (see builtOnFirstUse). */
export const ScriptSchema = z.lazy(() =>
  z.enum([
    'Latin',
    'Han',
    'Hiragana',
    'Katakana',
    'Hangul',
    'Cyrillic',
    'Greek',
    'Arabic',
    'Hebrew',
    'Thai',
    'Devanagari',
  ]),
);
export type Script = z.infer<typeof ScriptSchema>;

/** A language (script share) check of the input guardrail. Built on first use (see builtOnFirstUse). */
export const LanguageCheckSchema = z.lazy(() =>
  z
    .object({
      /** Scripts the input is expected in, e.g. `['Han', 'Latin']` for Chinese and English. */
      allowedScripts: z.array(ScriptSchema).min(1),
      /** Flag when the share of letters in allowed scripts is below this. */
      minShare: z.number().min(0).max(1).default(0.6),
      /** Strings with fewer letters are not judged. */
      minLetters: z.number().int().positive().default(12),
    })
    .strict(),
);
export type LanguageCheck = z.output<typeof LanguageCheckSchema>;

/**
 * Any letter. Built on first use (see builtOnFirstUse): the workflow bundler (swc, target es2017)
 * spells `\p{L}` out as a 10 KB character class, which every run would otherwise compile.
 */
const letter = builtOnFirstUse(() => /\p{L}/gu);

/** How many matches of global `pattern` `text` holds (counted one by one: no array of them all). */
function countMatches(text: string, pattern: RegExp): number {
  let n = 0;
  for (const _ of text.matchAll(pattern)) n += 1;
  return n;
}

/**
 * Flag `text` (one detection over the whole string) when at least `minLetters` letters are present
 * and fewer than `minShare` of them are in `allowedScripts`. Linear in the length of `text`; never
 * throws.
 */
export function* detectLanguage(text: string, check: LanguageCheck): Generator<Detection> {
  const letters = countMatches(text, letter());
  if (letters < check.minLetters) return;
  const allowed = new RegExp(check.allowedScripts.map((s) => `\\p{Script=${s}}`).join('|'), 'gu');
  const inAllowed = countMatches(text, allowed);
  if (inAllowed / letters >= check.minShare) return;
  yield {
    code: InputReasonCodes.languageUnexpected,
    ruleId: 'language.script_share',
    span: { start: 0, end: text.length },
  };
}
