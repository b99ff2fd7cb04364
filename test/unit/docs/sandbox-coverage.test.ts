/**
 * Every module that ends up in a workflow bundle is covered by the workflow-sandbox lint rules
 * (eslint.config.js SANDBOX_FILES). The module list comes from the real bundles (each app's workflows
 * module and the tests' entry), not from a hand-kept list; ESLint itself says which rules apply.
 */
import { relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../src/devserver/config.js';
import { bundleWorkflows } from '../../../src/worker/bundle.js';

/**
 * Every workflow bundle entry in the repository: each app's `workflowsPath` (apps/<app>/app.ts names
 * it; the module is apps/<app>/workflow/workflows.ts), the bench's, and every test file that a test
 * bundles as workflow code (its name ends in -workflow.ts or -workflows.ts, or it is the tests' entry).
 */
function bundleEntries(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(projectRoot, dir))) {
      const rel = `${dir}/${name}`;
      if (name === 'node_modules' || (name === 'fixtures' && dir === 'test')) continue;
      if (statSync(join(projectRoot, rel)).isDirectory()) walk(rel);
      else if (/(^workflows\.ts|-workflows?\.ts|^index\.ts)$/.test(name) && isWorkflowModule(rel))
        found.push(rel);
    }
  };
  for (const dir of ['apps', 'bench', 'test']) walk(dir);
  return found.sort();
}

/** A module that exports a workflow: it uses the workflow API or defineAgentRun, or re-exports an entry. */
function isWorkflowModule(rel: string): boolean {
  const text = readFileSync(join(projectRoot, rel), 'utf8');
  return /@temporalio\/workflow'|defineAgentRun\(|export \{[^}]*agentRun[^}]*\} from/.test(text);
}

/** The repository's own modules (not node_modules) that webpack put in the bundle. */
async function bundledSources(workflowsPath: string, tracing = false): Promise<string[]> {
  const { code } = await bundleWorkflows({ workflowsPath, tracing });
  const found = new Set<string>();
  for (const m of code.matchAll(/"\.\/((?:src|apps|bench|test)\/[^"]+\.ts)"/g)) found.add(m[1]!);
  return [...found].sort();
}

describe('workflow sandbox lint coverage', () => {
  it('covers every module of every workflow bundle, traced or not', async () => {
    const eslint = new ESLint({ cwd: projectRoot });
    const files = new Set<string>();
    const entries = bundleEntries();
    // The list is found, not kept: the apps', the bench's and the tests' entries are all in it.
    for (const e of [
      'apps/refund/workflow/workflows.ts',
      'apps/showcase/workflow/workflows.ts',
      'bench/workflows/index.ts',
      'test/support/workflows.ts',
      'test/faults/fixtures/patched-workflows.ts',
    ])
      expect(entries).toContain(e);
    for (const entry of entries) for (const f of await bundledSources(join(projectRoot, entry))) files.add(f);
    for (const f of await bundledSources(join(projectRoot, 'test/support/workflows.ts'), true)) files.add(f);
    // The list is real: the core's runner and an app's graph are in it.
    expect([...files]).toContain('src/workflows/runner/runner.ts');
    expect([...files]).toContain('apps/refund/workflow/refund-graph.ts');
    const uncovered: string[] = [];
    for (const file of files) {
      const config = (await eslint.calculateConfigForFile(resolve(projectRoot, file))) as {
        rules?: Record<string, unknown>;
      };
      if (!config.rules?.['no-restricted-globals']) uncovered.push(file);
    }
    expect(uncovered, 'bundled files outside the sandbox lint rules').toEqual([]);
  }, 120_000);

  it('would notice an uncovered file (the check can fail)', async () => {
    const eslint = new ESLint({ cwd: projectRoot });
    const outside = relative(projectRoot, resolve(projectRoot, 'src/worker/harness-worker.ts'));
    const config = (await eslint.calculateConfigForFile(resolve(projectRoot, outside))) as {
      rules?: Record<string, unknown>;
    };
    expect(config.rules?.['no-restricted-globals']).toBeUndefined();
  });
});
