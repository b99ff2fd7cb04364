import { combineDefinitions } from '../../../src/workflows/index.js';
import { benchBundleDefinition } from '../../../bench/workflows/definition.js';
import { retailDefinition } from '../../../apps/retail/workflow/definition.js';
import { graphChecksDefinition } from './graph-checks.js';
import { graphStepsDefinition } from './graph-steps.js';
import { taintFilesGitDefinition } from './taint-files-git.js';
import { threadMemoryDefinition } from './thread-memory-graph.js';
import { contextPoliciesDefinition } from './context-policies.js';
import { deliveredGoalDefinition } from './delivered-goal.js';

/**
 * What the tests' bundle serves: the bench's bundle (every example app, the bench), the retail app's
 * routed profiles, the test-only graphs, the context policies' goals and the delivered answer's goal.
 */
export const testBundleDefinition = combineDefinitions(
  benchBundleDefinition,
  graphChecksDefinition,
  graphStepsDefinition,
  threadMemoryDefinition,
  taintFilesGitDefinition,
  retailDefinition,
  contextPoliciesDefinition,
  deliveredGoalDefinition,
);
