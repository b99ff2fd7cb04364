import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import type { CompletionEvaluator } from './completion.js';
import { CompletionReasonCodes } from './completion-reason-codes.js';
import { defineEvaluator } from './define-evaluator.js';
import { collectEvidence, decidingCheck, operatorAttestedWrites, verifiesAttested } from './evidence.js';
import {
  checkStateOf,
  failureCodeOf,
  idsOf,
  makeVerdict,
  verificationStateOf,
} from './verification-state.js';

/**
 * Params of `action_with_verification/v1`, from the trusted profile contract. Built once per
 * worker (see sharedAcrossRuns).
 */
export const ActionWithVerificationParamsSchema = z.lazy(
  sharedAcrossRuns('core/completion/action-with-verification#ActionWithVerificationParamsSchema', () =>
    z
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
      .strict(),
  ),
);

/**
 * `action_with_verification/v1`: the run performed an action and an independent check confirmed it.
 *
 * The action is a trusted observed artifact recorded by a succeeded `write` invocation (optionally
 * restricted by `actionTool`/`actionType`). A check is a trusted verified artifact (optionally of
 * `verificationType`) recorded by a later succeeded invocation whose verification subject names
 * the action by artifact id or external id; the latest linked check decides. Model artifacts and
 * the final output text never count, whatever they claim.
 *
 * A write whose activity was lost and which a person settled as `succeeded` naming its external id
 * (see `operatorAttestedWrites`) counts as an action of `actionTool` (never of an `actionType`
 * alone: it has no artifact) and needs a check whose subject names exactly that external id; a pass
 * then also carries `completion.operator_attested_action`.
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
    const attested = operatorAttestedWrites(input.invocations).filter((w) =>
      params.actionTool !== undefined ? w.tool === params.actionTool : params.actionType === undefined,
    );
    if (actions.length === 0 && attested.length === 0) {
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
    const attestedStates = attested.map((w) =>
      checkStateOf(decidingCheck(checks.filter((c) => verifiesAttested(c, w)))),
    );
    const good = states.filter((s) => s.kind === 'passed');
    const goodAttested = attestedStates.flatMap((s) => (s.kind === 'passed' ? [s.check] : []));
    const total = states.length + attested.length;
    const passing = good.length + goodAttested.length;
    const ok = params.require === 'all' ? passing === total : passing > 0;
    if (ok) {
      return makeVerdict(
        id,
        true,
        [
          CompletionReasonCodes.actionVerified,
          ...(goodAttested.length > 0 ? [CompletionReasonCodes.operatorAttestedAction] : []),
        ],
        [...good.flatMap(idsOf), ...goodAttested.map((c) => c.artifact.id)],
        goodAttested.length === 0
          ? `${passing} observed action(s) verified`
          : `${good.length} observed and ${goodAttested.length} operator-settled action(s) verified`,
      );
    }
    const bad = states.filter((s) => s.kind !== 'passed');
    const badAttested = attestedStates.filter((s) => s.kind !== 'passed');
    const unlinked = [...bad, ...badAttested].some((s) => s.kind === 'unverified')
      ? checks.map((c) => c.artifact.id)
      : [];
    return makeVerdict(
      id,
      false,
      [failureCodeOf([...bad, ...badAttested], checks)],
      [
        ...bad.flatMap(idsOf),
        ...badAttested.flatMap((s) => (s.check ? [s.check.artifact.id] : [])),
        ...unlinked,
      ],
      `${total - passing} of ${total} ${attested.length === 0 ? 'observed ' : ''}action(s) lack a passed linked verification`,
      evidence,
    );
  },
);
