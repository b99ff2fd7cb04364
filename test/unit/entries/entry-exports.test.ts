/**
 * The public surface of each package entry, committed as a plain list per entry
 * (test/unit/entries/exports/<entry>.txt) so a changed surface is a visible diff: `value` names are
 * `Object.keys(await import(entry))` in a fresh process, `type` names are the rest of what the
 * TypeScript compiler says the module exports (interfaces, type aliases, `export type`).
 *
 * After an intended change: UPDATE_ENTRY_SNAPSHOTS=1 npx vitest run --project unit test/unit/entries
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/devserver/config.js';
import { importInFreshProcess, packageEntries, type PackageEntry } from './entry-process.js';

const SNAPSHOTS = join(projectRoot, 'test/unit/entries/exports');
const UPDATE = process.env.UPDATE_ENTRY_SNAPSHOTS === '1';
const HOW_TO_UPDATE =
  'UPDATE_ENTRY_SNAPSHOTS=1 npx vitest run --project unit test/unit/entries/entry-exports.test.ts';

/** Every name each entry exports, by the compiler (values and types alike). */
function compiledExports(entries: readonly PackageEntry[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(projectRoot, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  const files = entries.map((e) => join(projectRoot, e.source));
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const e of entries) {
    const source = program.getSourceFile(join(projectRoot, e.source));
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`the compiler found no module at ${e.source}`);
    names.set(
      e.slug,
      checker.getExportsOfModule(symbol).map((s) => s.getName()),
    );
  }
  return names;
}

/** The snapshot text: one `value <name>` or `type <name>` line per export, sorted by name. */
function render(entry: PackageEntry, values: readonly string[], all: readonly string[]): string {
  const runtime = new Set(values);
  const names = [...new Set([...all, ...values])].sort();
  const types = names.filter((n) => !runtime.has(n));
  return [
    `# ${entry.name} (${entry.source}): ${values.length} values, ${types.length} types`,
    `# regenerate: ${HOW_TO_UPDATE}`,
    ...names.map((n) => `${runtime.has(n) ? 'value' : 'type '} ${n}`),
    '',
  ].join('\n');
}

const nameOf = (line: string): string => line.split(/\s+/).pop()!;

/** What changed, as `+ value x` / `- type y` lines. */
function difference(before: string, after: string): string {
  const lines = (t: string) => new Set(t.split('\n').filter((l) => l && !l.startsWith('#')));
  const a = lines(before);
  const b = lines(after);
  return [
    ...[...a].filter((l) => !b.has(l)).map((l) => `- ${l}`),
    ...[...b].filter((l) => !a.has(l)).map((l) => `+ ${l}`),
  ]
    .sort((x, y) => nameOf(x).localeCompare(nameOf(y)) || (x[0] === y[0] ? 0 : x[0] === '-' ? -1 : 1))
    .join('\n');
}

describe('package entries: their export names', () => {
  const entries = packageEntries();
  let compiled: Map<string, string[]>;
  beforeAll(() => {
    compiled = compiledExports(entries);
  }, 180_000);

  for (const e of entries) {
    it(`${e.name} exports what test/unit/entries/exports/${e.slug}.txt lists`, async () => {
      const { runtimeExports } = await importInFreshProcess(e);
      const all = compiled.get(e.slug)!;
      // What runs is what the compiler sees: every runtime name is a declared export.
      expect(
        runtimeExports.filter((n) => !all.includes(n)),
        'runtime exports the compiler does not know',
      ).toEqual([]);
      const text = render(e, runtimeExports, all);
      const file = join(SNAPSHOTS, `${e.slug}.txt`);
      if (UPDATE) {
        mkdirSync(SNAPSHOTS, { recursive: true });
        writeFileSync(file, text);
        return;
      }
      if (!existsSync(file))
        throw new Error(`No export snapshot for ${e.name} at ${file}. Run: ${HOW_TO_UPDATE}`);
      const committed = readFileSync(file, 'utf8');
      if (committed !== text) {
        throw new Error(
          `The public surface of ${e.name} changed (test/unit/entries/exports/${e.slug}.txt):\n` +
            `${difference(committed, text) || '(order or header only)'}\n` +
            `If this change is intended, update the snapshot and commit it: ${HOW_TO_UPDATE}`,
        );
      }
    }, 120_000);
  }

  it('tells a value from a type (the lists are real)', () => {
    const workflow = compiled.get('workflow')!;
    expect(workflow).toContain('defineAgentRun');
    expect(workflow).toContain('RunView');
    const contract = readFileSync(join(SNAPSHOTS, 'contract.txt'), 'utf8');
    expect(contract).toMatch(/^value HarnessError$/m);
    expect(contract).toMatch(/^type {2}AgentRunInput$/m);
    expect(difference(contract, contract.replace('value HarnessError\n', 'type  HarnessError\n'))).toBe(
      '- value HarnessError\n+ type  HarnessError',
    );
  });
});
