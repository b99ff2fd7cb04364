/**
 * Every module that ends up in a workflow bundle is covered by the workflow-sandbox lint rules
 * (eslint.config.js SANDBOX_FILES). The module list comes from the real bundles (each app's workflows
 * module and the tests' entry), not from a hand-kept list; ESLint itself says which rules apply.
 */
import { relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { benchWorkflowsPath } from '../../../bench/lib/workflows-path.js';
import { app as refundApp } from '../../../apps/refund/app.js';
import { app as showcaseApp } from '../../../apps/showcase/app.js';
import { projectRoot } from '../../../src/devserver/config.js';
import { bundleWorkflows } from '../../../src/worker/bundle.js';
import { testWorkflowsPath } from '../../support/workflows-path.js';

const ENTRIES = [refundApp.workflowsPath, showcaseApp.workflowsPath, benchWorkflowsPath, testWorkflowsPath];

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
    for (const entry of ENTRIES) for (const f of await bundledSources(entry)) files.add(f);
    for (const f of await bundledSources(testWorkflowsPath, true)) files.add(f);
    // The list is real: the core's runner and an app's graph are in it.
    expect([...files]).toContain('src/core/runner/runner.ts');
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
