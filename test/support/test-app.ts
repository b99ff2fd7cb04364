import type { HarnessApp } from '../../src/worker/index.js';
import { registerBenchTools } from '../../apps/bench/bench-noop-tool.js';
import { app as showcase } from '../../apps/showcase/app.js';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { refundSettings } from '../../apps/refund/settings.js';
import { combineDefinitions } from '../../src/core/index.js';
import { benchDefinition } from '../../apps/bench/workflow/definition.js';
import { testWorkflowsPath } from './workflows-path.js';

/**
 * The tests' app: the showcase plus the bench profile and tool, on the tests' workflow bundle entry.
 * CLI and worker processes started by tests load it (HARNESS_APP), so their compositions match the
 * in-process test fixtures.
 */
export const app: HarnessApp = {
  ...showcase,
  name: 'test',
  workflowsPath: testWorkflowsPath,
  definition: combineDefinitions(showcase.definition, benchDefinition),
  createComposition: (o) =>
    createShowcaseComposition({
      ...o,
      refundStorePath: refundSettings(o.env).refundStorePath,
      extend: [(registry) => registerBenchTools(registry)],
    }),
};
