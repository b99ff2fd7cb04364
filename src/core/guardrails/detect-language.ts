import { z } from 'zod';
import type { Detection } from './finding.js';
import { InputReasonCodes } from './reason-codes.js';

/** Unicode scripts a language check may allow. */
export const ScriptSchema = z.enum([
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
]);
export type Script = z.infer<typeof ScriptSchema>;

export const LanguageCheckSchema = z
  .object({
    /** Scripts the input is expected in, e.g. `['Han', 'Latin']` for Chinese and English. */
    allowedScripts: z.array(ScriptSchema).min(1),
    /** Flag when the share of letters in allowed scripts is below this. */
    minShare: z.number().min(0).max(1).default(0.6),
    /** Strings with fewer letters are not judged. */
    minLetters: z.number().int().positive().default(12),
  })
  .strict();
export type LanguageCheck = z.output<typeof LanguageCheckSchema>;

const LETTER = /\p{L}/gu;

/**
 * Flag `text` (one detection over the whole string) when at least `minLetters` letters are present
 * and fewer than `minShare` of them are in `allowedScripts`. Never throws.
 */
export function detectLanguage(text: string, check: LanguageCheck): Detection[] {
  const letters = text.match(LETTER)?.length ?? 0;
  if (letters < check.minLetters) return [];
  const allowed = new RegExp(check.allowedScripts.map((s) => `\\p{Script=${s}}`).join('|'), 'gu');
  const inAllowed = text.match(allowed)?.length ?? 0;
  if (inAllowed / letters >= check.minShare) return [];
  return [
    {
      code: InputReasonCodes.languageUnexpected,
      ruleId: 'language.script_share',
      span: { start: 0, end: text.length },
    },
  ];
}
