import { z } from 'zod';
import type { CompletionEvaluator } from './completion.js';
import { CompletionReasonCodes } from './completion-reason-codes.js';
import { defineEvaluator } from './define-evaluator.js';
import { collectEvidence } from './evidence.js';
import { failureCodeOf, idsOf, makeVerdict, verificationStateOf } from './verification-state.js';

/** Params of `action_with_verification/v1`, from the trusted profile contract. */
export const ActionWithVerificationParamsSchema = z
  .object({
    /** Only observed artifacts recorded by this tool count as the action (e.g. `refund.create`). */
    actionTool: z.string().min(1).optional(),
    /** Only observed artifacts of this type count as the action (e.g. `refund`). */
    actionType: z.string().min(1).optional(),
    /** Only verified artifacts of this type count as checks (e.g. `refund.status_check`). */
    verificationType: z.string().min(1).optional(),
    /** `all` (default): every matching action must be verified; `any`: one verified action suffices. */
    require: z.enum(['all', 'any']).default('all'),
  })
  .strict();

/**
 * `action_with_verification/v1`: the run performed an action and an independent check confirmed it.
 *
 * The action is a trusted observed artifact recorded by a succeeded `write` invocation (optionally
 * restricted by `actionTool`/`actionType`). A check is a trusted verified artifact (optionally of
 * `verificationType`) recorded by a later succeeded invocation whose verification subject names
 * the action by artifact id or external id; the latest linked check decides. Model artifacts and
 * the final output text never count, whatever they claim.
 *
 * Fails with `completion.no_observed_action`, `completion.no_verified_artifact`,
 * `completion.verification_failed` or `completion.unlinked_verification` (plus
 * `completion.unattributed_artifact_ignored` when artifacts were ignored).
 */
export const actionWithVerification: CompletionEvaluator = defineEvaluator(
  'action_with_verification',
  'v1',
  ActionWithVerificationParamsSchema,
  (input, params) => {
    const id = 'action_with_verification/v1';
    const evidence = collectEvidence(input);
    const actions = evidence.observed.filter(
      (a) =>
        a.producer.effect === 'write' &&
        (params.actionTool === undefined || a.producer.tool === params.actionTool) &&
        (params.actionType === undefined || a.artifact.type === params.actionType),
    );
    if (actions.length === 0) {
      return makeVerdict(
        id,
        false,
        [CompletionReasonCodes.noObservedAction],
        [],
        'no observed action was recorded',
        evidence,
      );
    }
    const checks = evidence.verified.filter(
      (c) => params.verificationType === undefined || c.artifact.type === params.verificationType,
    );
    const states = actions.map((a) => verificationStateOf(a, checks));
    const good = states.filter((s) => s.kind === 'passed');
    const ok = params.require === 'all' ? good.length === states.length : good.length > 0;
    if (ok) {
      return makeVerdict(
        id,
        true,
        [CompletionReasonCodes.actionVerified],
        good.flatMap(idsOf),
        `${good.length} observed action(s) verified`,
      );
    }
    const bad = states.filter((s) => s.kind !== 'passed');
    const unlinked = bad.some((s) => s.kind === 'unverified') ? checks.map((c) => c.artifact.id) : [];
    return makeVerdict(
      id,
      false,
      [failureCodeOf(bad, checks)],
      [...bad.flatMap(idsOf), ...unlinked],
      `${bad.length} of ${states.length} observed action(s) lack a passed linked verification`,
      evidence,
    );
  },
);
