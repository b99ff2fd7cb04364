/**
 * Size held by lint (eslint.config.js): files of at most 400 lines, functions of at most 120. The files
 * over a limit when it came in are listed in size-allowlist.json with their size, and the list may only
 * shrink: a listed file or function still exists, is still over the limit and is recorded at its size
 * now (smaller is fine, write the new size down; under the limit, take it off the list); nothing
 * unlisted is over a limit. ESLint measures, with the very rules and options the config sets.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/devserver/config.js';

interface Sizes {
  lines?: number;
  functions?: Record<string, number>;
}
interface Allowlist {
  readonly limits: { readonly 'max-lines': number; readonly 'max-lines-per-function': number };
  readonly files: Record<string, Sizes>;
}

const ALLOWLIST = 'size-allowlist.json';
const allowlist = (): Allowlist =>
  JSON.parse(readFileSync(join(projectRoot, ALLOWLIST), 'utf8')) as Allowlist;

/** The key of an over-long function: ESLint's name for it, plus the variable it is bound to if unnamed. */
function functionKey(message: string, sourceLine: string): string {
  const described = /^(.*) has too many lines/.exec(message)![1]!;
  if (described.includes("'")) return described;
  const bound = /(?:const|let|var)\s+([\w$]+)\s*=|([\w$]+)\s*:/.exec(sourceLine);
  const name = bound?.[1] ?? bound?.[2];
  return name ? `${described} '${name}'` : described;
}

/** Every file and function of src/ over the limits, measured by ESLint (no type information needed). */
async function measure(
  limits: Allowlist['limits'],
  patterns = ['src/**/*.ts'],
): Promise<Record<string, Sizes>> {
  const eslint = new ESLint({
    cwd: projectRoot,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        rules: {
          'max-lines': ['error', { max: limits['max-lines'], skipBlankLines: false, skipComments: false }],
          'max-lines-per-function': [
            'error',
            { max: limits['max-lines-per-function'], skipBlankLines: true, skipComments: true },
          ],
        },
      },
    ],
  });
  const found: Record<string, Sizes> = {};
  for (const result of await eslint.lintFiles(patterns)) {
    const file = relative(projectRoot, result.filePath);
    const lines = (result.source ?? readFileSync(result.filePath, 'utf8')).split('\n');
    for (const m of result.messages) {
      if (m.fatal) throw new Error(`${file}: ${m.message}`);
      const size = Number(/\((\d+)\)/.exec(m.message)?.[1]);
      const entry = (found[file] ??= {});
      if (m.ruleId === 'max-lines') entry.lines = size;
      else if (m.ruleId === 'max-lines-per-function') {
        let key = functionKey(m.message, lines[m.line - 1] ?? '');
        for (let n = 2; entry.functions?.[key] !== undefined; n++) key = `${key.replace(/ #\d+$/, '')} #${n}`;
        (entry.functions ??= {})[key] = size;
      }
    }
  }
  return found;
}

/** Why the allowlist and the measured sizes disagree, one line per entry. */
function problems(list: Allowlist, measured: Record<string, Sizes>): string[] {
  const out: string[] = [];
  const { 'max-lines': maxLines, 'max-lines-per-function': maxFn } = list.limits;
  for (const [file, listed] of Object.entries(list.files)) {
    if (!existsSync(join(projectRoot, file))) {
      out.push(`${file} is listed but no longer exists: remove it from ${ALLOWLIST}`);
      continue;
    }
    const now = measured[file] ?? {};
    if (listed.lines !== undefined) {
      if (now.lines === undefined)
        out.push(`${file} is now within ${maxLines} lines: remove its "lines" from ${ALLOWLIST}`);
      else if (now.lines > listed.lines)
        out.push(`${file} grew from ${listed.lines} to ${now.lines} lines: it may only shrink (split it)`);
      else if (now.lines < listed.lines)
        out.push(`${file} shrank from ${listed.lines} to ${now.lines} lines: record "lines": ${now.lines}`);
    } else if (now.lines !== undefined) {
      out.push(`${file} has ${now.lines} lines, over ${maxLines}, and may not be listed anew: split it`);
    }
    for (const [fn, size] of Object.entries(listed.functions ?? {})) {
      const current = now.functions?.[fn];
      if (current === undefined)
        out.push(`${file}: ${fn} is now within ${maxFn} lines (or gone): remove it from ${ALLOWLIST}`);
      else if (current > size)
        out.push(`${file}: ${fn} grew from ${size} to ${current} lines: it may only shrink (split it)`);
      else if (current < size)
        out.push(`${file}: ${fn} shrank from ${size} to ${current} lines: record ${current}`);
    }
    for (const [fn, size] of Object.entries(now.functions ?? {}))
      if (listed.functions?.[fn] === undefined)
        out.push(`${file}: ${fn} has ${size} lines, over ${maxFn}, and is not listed: split it`);
  }
  for (const [file, now] of Object.entries(measured)) {
    if (list.files[file]) continue;
    if (now.lines !== undefined) out.push(`${file} has ${now.lines} lines, over ${maxLines}: split it`);
    for (const [fn, size] of Object.entries(now.functions ?? {}))
      out.push(`${file}: ${fn} has ${size} lines, over ${maxFn}: split it`);
  }
  return out;
}

describe(`${ALLOWLIST}: the size allowlist may only shrink`, () => {
  it('lists exactly the files and functions over the limits, at their size', async () => {
    const list = allowlist();
    expect(problems(list, await measure(list.limits))).toEqual([]);
  }, 120_000);

  it('is what eslint.config.js applies: the limits, raised per listed file to its recorded size', async () => {
    const list = allowlist();
    const eslint = new ESLint({ cwd: projectRoot });
    const ruleOf = async (file: string) =>
      ((await eslint.calculateConfigForFile(join(projectRoot, file))) as { rules: Record<string, unknown> })
        .rules;
    expect(await ruleOf('src/contract/statuses.ts')).toMatchObject({
      'max-lines': [2, { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': [2, { max: 120, skipBlankLines: true, skipComments: true }],
    });
    for (const [file, sizes] of Object.entries(list.files)) {
      const rules = await ruleOf(file);
      expect(rules['max-lines'], file).toEqual([
        2,
        expect.objectContaining({ max: Math.max(400, sizes.lines ?? 0) }),
      ]);
      expect(rules['max-lines-per-function'], file).toEqual([
        2,
        expect.objectContaining({ max: Math.max(120, ...Object.values(sizes.functions ?? {})) }),
      ]);
    }
  }, 60_000);

  it('says what to do when an entry grows, shrinks, falls under the limit, or a new one appears', () => {
    const limits = { 'max-lines': 400, 'max-lines-per-function': 120 };
    const file = 'src/workflows/runner/runner.ts';
    const list: Allowlist = { limits, files: { [file]: { lines: 600, functions: { "Function 'a'": 200 } } } };
    expect(problems(list, { [file]: { lines: 650, functions: { "Function 'a'": 200 } } })).toEqual([
      `${file} grew from 600 to 650 lines: it may only shrink (split it)`,
    ]);
    expect(problems(list, { [file]: { lines: 500, functions: { "Function 'a'": 150 } } })).toEqual([
      `${file} shrank from 600 to 500 lines: record "lines": 500`,
      `${file}: Function 'a' shrank from 200 to 150 lines: record 150`,
    ]);
    expect(problems(list, { 'src/x.ts': { functions: { "Function 'b'": 130 } } })).toEqual([
      `${file} is now within 400 lines: remove its "lines" from ${ALLOWLIST}`,
      `${file}: Function 'a' is now within 120 lines (or gone): remove it from ${ALLOWLIST}`,
      `src/x.ts: Function 'b' has 130 lines, over 120: split it`,
    ]);
    expect(problems({ limits, files: { 'src/gone.ts': { lines: 500 } } }, {})).toEqual([
      `src/gone.ts is listed but no longer exists: remove it from ${ALLOWLIST}`,
    ]);
  });

  it('names an unnamed function by the variable it is bound to', () => {
    expect(
      functionKey(
        'Async arrow function has too many lines (170). Maximum allowed is 120.',
        '  const callModel = async (input) => {',
      ),
    ).toBe("Async arrow function 'callModel'");
    expect(functionKey("Function 'planRequest' has too many lines (217).", 'function planRequest() {')).toBe(
      "Function 'planRequest'",
    );
  });
});
