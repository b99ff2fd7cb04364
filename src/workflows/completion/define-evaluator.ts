import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import type { CompletionEvaluator, CompletionInput, CompletionVerdict } from './completion.js';
import { evaluatorId } from './completion.js';
import { CompletionError } from './completion-error.js';
import { CompletionReasonCodes } from './completion-reason-codes.js';

/** What an evaluator function returns; the wrapper stamps the evaluator id. */
export type VerdictBody = Omit<CompletionVerdict, 'evaluator'>;

/** Built once per worker (see sharedAcrossRuns). */
const VerdictBodySchema = z.lazy(
  sharedAcrossRuns('core/completion/define-evaluator#VerdictBodySchema', () =>
    z.object({
      passed: z.boolean(),
      reasonCodes: z
        .array(
          z
            .string()
            .regex(/^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$/)
            .max(100),
        )
        .min(1)
        .max(20),
      evidenceArtifactIds: z.array(z.string().min(1).max(200)).max(100),
      summary: z.string().max(500),
    }),
  ),
);

/** Built once per worker (see sharedAcrossRuns). */
const AnyParamsSchema = z.lazy(
  sharedAcrossRuns('core/completion/define-evaluator#AnyParamsSchema', () =>
    z.record(z.string(), z.unknown()),
  ),
);

/**
 * An evaluator whose params are checked with a zod schema before `fn` runs.
 *
 * `evaluate` never throws: unusable params give a failing verdict with
 * `completion.params_invalid`; a throwing `fn` or a malformed result (no reason code, codes not
 * lowercase dotted, over the size limits) gives a failing verdict with `completion.evaluator_error`.
 * `checkParams` throws {@link CompletionError} `completion.params_invalid` for unusable params.
 */
export function defineEvaluator<S extends z.ZodType<unknown, Record<string, unknown>>>(
  name: string,
  version: string,
  paramsSchema: S,
  fn: (input: CompletionInput, params: z.output<S>) => VerdictBody,
): CompletionEvaluator {
  const id = evaluatorId({ name, version });
  const fail = (code: string, summary: string): CompletionVerdict => ({
    evaluator: id,
    passed: false,
    reasonCodes: [code],
    evidenceArtifactIds: [],
    summary,
  });
  return {
    name,
    version,
    checkParams(params) {
      const parsed = paramsSchema.safeParse(params);
      if (!parsed.success) {
        throw new CompletionError(
          'completion.params_invalid',
          `${id}: invalid params: ${describeIssues(parsed.error)}`,
          {
            evaluator: id,
          },
        );
      }
    },
    evaluate(input) {
      const parsed = paramsSchema.safeParse(input.params);
      if (!parsed.success)
        return fail(CompletionReasonCodes.paramsInvalid, `invalid params: ${describeIssues(parsed.error)}`);
      let body: unknown;
      try {
        body = fn(input, parsed.data);
      } catch {
        return fail(CompletionReasonCodes.evaluatorError, `${id} threw while evaluating`);
      }
      const checked = VerdictBodySchema.safeParse(body);
      if (!checked.success)
        return fail(CompletionReasonCodes.evaluatorError, `${id} returned a malformed verdict`);
      return { evaluator: id, ...checked.data };
    },
  };
}

/**
 * A custom evaluator from a plain function (the `CompletionEvaluatorFunc` of the seed). Params are
 * passed through unchecked unless `paramsSchema` is given. Same failure semantics as
 * {@link defineEvaluator}.
 */
export function evaluatorFromFunction(
  name: string,
  version: string,
  fn: (input: CompletionInput) => VerdictBody,
  paramsSchema: z.ZodType<unknown, Record<string, unknown>> = AnyParamsSchema,
): CompletionEvaluator {
  return defineEvaluator(name, version, paramsSchema, (input) => fn(input));
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}
