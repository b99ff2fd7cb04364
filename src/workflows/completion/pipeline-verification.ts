import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import type { CompletionEvaluator } from './completion.js';
import { CompletionReasonCodes } from './completion-reason-codes.js';
import { defineEvaluator } from './define-evaluator.js';
import { collectEvidence, decidingCheck, latest, passed } from './evidence.js';
import { makeVerdict, verificationStateOf } from './verification-state.js';

/** Default artifact type of a verified pipeline run. */
export const PIPELINE_ARTIFACT_TYPE = 'pipeline.run';

/** Params of `pipeline_verification/v1`. Built once per worker (see sharedAcrossRuns). */
export const PipelineVerificationParamsSchema = z.lazy(
  sharedAcrossRuns('core/completion/pipeline-verification#PipelineVerificationParamsSchema', () =>
    z
      .object({
        /** Type of the verified pipeline artifact; default `pipeline.run`. */
        pipelineType: z.string().min(1).default(PIPELINE_ARTIFACT_TYPE),
        /** When true, the pipeline run must verify the latest observed change. Default false. */
        requireLinkedChange: z.boolean().default(false),
        /** With `requireLinkedChange`: only observed artifacts of this type are changes (e.g. `git.remote_branch`). */
        changeType: z.string().min(1).optional(),
        /** With `requireLinkedChange`: only observed artifacts recorded by this tool are changes. */
        changeTool: z.string().min(1).optional(),
      })
      .strict(),
  ),
);

/**
 * `pipeline_verification/v1`: a trusted pipeline run (a verified artifact of `pipelineType`)
 * passed.
 *
 * Without `requireLinkedChange` the latest pipeline run decides. With it, the latest trusted
 * observed change (filtered by `changeType`/`changeTool`) must be the subject of the pipeline run
 * (by artifact id or external id, recorded by a later invocation) and the latest such run decides:
 * a pipeline that tested an earlier change does not cover a later one.
 *
 * Fails with `completion.no_pipeline_verification`, `completion.verification_failed`,
 * `completion.no_observed_action` (no change to link) or `completion.unlinked_verification`.
 */
export const pipelineVerification: CompletionEvaluator = defineEvaluator(
  'pipeline_verification',
  'v1',
  PipelineVerificationParamsSchema,
  (input, params) => {
    const id = 'pipeline_verification/v1';
    const evidence = collectEvidence(input);
    const runs = evidence.verified.filter((c) => c.artifact.type === params.pipelineType);
    const deciding = decidingCheck(runs);
    if (deciding === undefined) {
      return makeVerdict(
        id,
        false,
        [CompletionReasonCodes.noPipelineVerification],
        [],
        'no pipeline run was verified',
        evidence,
      );
    }
    if (!params.requireLinkedChange) {
      return passed(deciding)
        ? makeVerdict(
            id,
            true,
            [CompletionReasonCodes.pipelinePassed],
            [deciding.artifact.id],
            'the latest pipeline run passed',
          )
        : makeVerdict(
            id,
            false,
            [CompletionReasonCodes.verificationFailed],
            [deciding.artifact.id],
            'the latest pipeline run failed',
            evidence,
          );
    }
    const change = latest(
      evidence.observed.filter(
        (a) =>
          (params.changeType === undefined || a.artifact.type === params.changeType) &&
          (params.changeTool === undefined || a.producer.tool === params.changeTool),
      ),
    );
    if (change === undefined) {
      return makeVerdict(
        id,
        false,
        [CompletionReasonCodes.noObservedAction],
        [],
        'no observed change to link the pipeline to',
        evidence,
      );
    }
    const state = verificationStateOf(change, runs);
    if (state.kind === 'unverified') {
      return makeVerdict(
        id,
        false,
        [CompletionReasonCodes.unlinkedVerification],
        [change.artifact.id, ...runs.map((r) => r.artifact.id)],
        'no pipeline run verifies the latest observed change',
        evidence,
      );
    }
    return state.kind === 'passed'
      ? makeVerdict(
          id,
          true,
          [CompletionReasonCodes.pipelinePassed],
          [change.artifact.id, state.check.artifact.id],
          'the pipeline passed for the latest change',
        )
      : makeVerdict(
          id,
          false,
          [CompletionReasonCodes.verificationFailed],
          [change.artifact.id, state.check.artifact.id],
          'the pipeline failed for the latest change',
          evidence,
        );
  },
);
