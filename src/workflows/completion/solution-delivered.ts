import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import type { CompletionEvaluator } from './completion.js';
import { CompletionReasonCodes } from './completion-reason-codes.js';
import { defineEvaluator } from './define-evaluator.js';

/**
 * `solution_delivered/v1`: passes when the final output is non-empty: a string with a
 * non-whitespace character, a non-empty array or object, a number or a boolean. Fails with
 * `completion.no_final_output` for undefined, null, blank strings and empty arrays/objects.
 * Takes no params. It checks delivery only, not correctness: use it for text goals.
 */
export const solutionDelivered: CompletionEvaluator = defineEvaluator(
  'solution_delivered',
  'v1',
  z.lazy(sharedAcrossRuns('core/completion/solution-delivered#params', () => z.object({}).strict())),
  (input) => {
    const ok = isNonEmpty(input.finalOutput);
    return ok
      ? {
          passed: true,
          reasonCodes: [CompletionReasonCodes.outputDelivered],
          evidenceArtifactIds: [],
          summary: 'a final output was delivered',
        }
      : {
          passed: false,
          reasonCodes: [CompletionReasonCodes.noFinalOutput],
          evidenceArtifactIds: [],
          summary: 'the final output is empty',
        };
  },
);

function isNonEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim().length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return typeof value === 'number' || typeof value === 'boolean';
}
