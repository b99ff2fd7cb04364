import { fileURLToPath } from 'node:url';
import type { HarnessApp } from '../../src/index.js';
import { createRefundComposition } from './composition.js';
import { refundFailureCase } from './eval/sample-case.js';
import { refundDefinition } from './workflow/definition.js';
import { refundPrincipals, refundSettings } from './settings.js';

/** The refund app alone (seed 004's refund story): what `npm start` runs. */
export const app: HarnessApp = {
  name: 'refund',
  workflowsPath: fileURLToPath(new URL('./workflow/workflows.ts', import.meta.url)),
  definition: refundDefinition,
  createComposition: (o) =>
    createRefundComposition({
      ...o,
      refundStorePath: refundSettings(o.env).refundStorePath,
      principals: o.principals ?? refundPrincipals(o.env),
    }),
  // Failure samples of refund runs become regression cases of the refund evaluation.
  failureCase: refundFailureCase,
};
