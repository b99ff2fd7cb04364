/**
 * The house rules of eslint.config.js fire (README "Layout"): a deep import into the workflow side from
 * another side, an upward import, a sandbox file naming Temporal's workflow API outside its binding,
 * and a new file over 400 lines each fail lint; the same code where it is allowed passes. Linted as
 * text at a path inside src/ (nothing is written), with the config's own rules and no type information.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/devserver/config.js';

const RULES = [
  'import-x/no-restricted-paths',
  'no-restricted-imports',
  'max-lines',
  'max-lines-per-function',
];

const eslint = new ESLint({
  cwd: projectRoot,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) => RULES.includes(ruleId),
});

/** The rule ids and messages lint reports for `code` placed at `filePath`. */
async function lint(filePath: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => ({ rule: m.ruleId, message: m.message }));
}

const PROBE = 'zz-lint-probe.ts';

describe('lint zones and size limits', () => {
  it('a deep import into src/workflows from another side fails; the entry passes', async () => {
    for (const side of ['client', 'activities', 'worker', 'service', 'cli']) {
      const deep = await lint(
        `src/${side}/${PROBE}`,
        "import { Runner } from '../workflows/runner/runner.js';\nexport const x = Runner;\n",
      );
      expect(
        deep.map((d) => d.rule),
        side,
      ).toEqual(['import-x/no-restricted-paths']);
      expect(deep[0]?.message, side).toMatch(/its entry/);
      expect(
        await lint(
          `src/${side}/${PROBE}`,
          "import { defineAgentRun } from '../workflows/index.js';\nexport const x = defineAgentRun;\n",
        ),
        side,
      ).toEqual([]);
    }
  });

  it('an upward import fails: activities -> worker, client -> activities (the SQL store), service -> cli', async () => {
    const cases: [string, string, RegExp][] = [
      [
        'src/activities',
        "import { createHarnessWorker } from '../worker/harness-worker.js';",
        /no upward import/,
      ],
      ['src/client', "import { openEvidenceStore } from '../activities/store/index.js';", /SQL store/],
      ['src/service', "import { buildProgram } from '../cli/program.js';", /CLI stands above the service/],
      [
        'src/contract',
        "import { Runner } from '../workflows/runner/runner.js';",
        /contract imports only the contract/,
      ],
      ['src/registry', "import { ToolPipeline } from '../workflows/runner/tool-pipeline.js';", /registry/],
    ];
    for (const [dir, line, message] of cases) {
      const found = await lint(`${dir}/${PROBE}`, `${line}\nexport const x = 1;\n`);
      expect(
        found.map((f) => f.rule),
        dir,
      ).toContain('import-x/no-restricted-paths');
      expect(found.map((f) => f.message).join('\n'), dir).toMatch(message);
    }
  });

  it('only src/workflows/temporal names @temporalio/workflow', async () => {
    const code = "import { sleep } from '@temporalio/workflow';\nexport const x = sleep;\n";
    const found = await lint(`src/workflows/runner/${PROBE}`, code);
    expect(found.map((f) => f.rule)).toEqual(['no-restricted-imports']);
    expect(found[0]?.message).toMatch(/src\/workflows\/temporal/);
    expect(await lint(`src/workflows/temporal/${PROBE}`, code)).toEqual([]);
  });

  it('a new file over 400 lines fails, and a function over 120 lines', async () => {
    const lines = (n: number): string =>
      Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
    expect(await lint(`src/registry/${PROBE}`, lines(400))).toEqual([]);
    expect(await lint(`src/registry/${PROBE}`, lines(401))).toEqual([
      expect.objectContaining({ rule: 'max-lines' }),
    ]);
    const body = (n: number): string =>
      `export function long(): number {\n  let x = 0;\n${'  x += 1;\n'.repeat(n - 4)}  return x;\n}\n`;
    expect(await lint(`src/registry/${PROBE}`, body(120))).toEqual([]);
    expect(await lint(`src/registry/${PROBE}`, body(121))).toEqual([
      expect.objectContaining({ rule: 'max-lines-per-function' }),
    ]);
  });
});
