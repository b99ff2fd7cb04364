import { fileURLToPath } from 'node:url';
import type { HarnessApp } from '../../src/index.js';
import { refundPrincipals, refundSettings } from '../refund/settings.js';
import { createShowcaseComposition } from './composition.js';
import { refundFailureCase } from '../refund/eval/sample-case.js';
import { showcaseDefinition } from './workflow/definition.js';

/**
 * The showcase app (this repository's default for `harness`, `harness worker` and `harness dev`): the
 * refund, coding and MCP filesystem examples in one worker.
 */
export const app: HarnessApp = {
  name: 'showcase',
  workflowsPath: fileURLToPath(new URL('./workflow/workflows.ts', import.meta.url)),
  definition: showcaseDefinition,
  createComposition: (o) =>
    createShowcaseComposition({
      ...o,
      refundStorePath: refundSettings(o.env).refundStorePath,
      principals: o.principals ?? refundPrincipals(o.env),
    }),
  // Failure samples of refund runs become regression cases of the refund evaluation.
  failureCase: refundFailureCase,
};
