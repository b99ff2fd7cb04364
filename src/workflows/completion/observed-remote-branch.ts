import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import type { CompletionEvaluator } from './completion.js';
import { CompletionReasonCodes } from './completion-reason-codes.js';
import { defineEvaluator } from './define-evaluator.js';
import type { TrustedArtifact } from './evidence.js';
import { collectEvidence } from './evidence.js';
import { failureCodeOf, idsOf, makeVerdict, verificationStateOf } from './verification-state.js';

/** Artifact type of an observed remote branch. */
export const REMOTE_BRANCH_ARTIFACT_TYPE = 'git.remote_branch';

/** Data of a `git.remote_branch` artifact. Built once per worker (see sharedAcrossRuns). */
export const RemoteBranchDataSchema = z.lazy(
  sharedAcrossRuns('core/completion/observed-remote-branch#RemoteBranchDataSchema', () =>
    z.object({
      remote: z.string().min(1),
      branch: z.string().min(1),
      sha: z.string().regex(/^[0-9a-f]{7,64}$/),
    }),
  ),
);

/** Params of `observed_remote_branch/v1`. Built once per worker (see sharedAcrossRuns). */
export const ObservedRemoteBranchParamsSchema = z.lazy(
  sharedAcrossRuns('core/completion/observed-remote-branch#ObservedRemoteBranchParamsSchema', () =>
    z
      .object({
        /** Required branch name, e.g. `agent/fix-123`. */
        branch: z.string().min(1).optional(),
        /** Required remote name, e.g. `origin`. */
        remote: z.string().min(1).optional(),
      })
      .strict(),
  ),
);

/**
 * `observed_remote_branch/v1`: a trusted executor observed the branch on the remote, and a later
 * independent check verified that observation.
 *
 * Looks at trusted observed `git.remote_branch` artifacts (data `{ remote, branch, sha }`, from a
 * succeeded invocation of any effect) matching `params.branch`/`params.remote`. For each
 * remote/branch only the latest observation counts (a later unverified push is not covered by an
 * earlier check). Passes when one such latest observation has a passed, linked, later verification.
 *
 * Fails with `completion.no_remote_branch`, `completion.invalid_artifact_data`,
 * `completion.branch_mismatch`, or the verification codes of `action_with_verification/v1`.
 */
export const observedRemoteBranch: CompletionEvaluator = defineEvaluator(
  'observed_remote_branch',
  'v1',
  ObservedRemoteBranchParamsSchema,
  (input, params) => {
    const id = 'observed_remote_branch/v1';
    const evidence = collectEvidence(input);
    const observed = evidence.observed.filter((a) => a.artifact.type === REMOTE_BRANCH_ARTIFACT_TYPE);
    if (observed.length === 0) {
      return makeVerdict(
        id,
        false,
        [CompletionReasonCodes.noRemoteBranch],
        [],
        'no remote branch was observed',
        evidence,
      );
    }
    const latestByBranch = new Map<string, TrustedArtifact>();
    const malformed: string[] = [];
    for (const a of observed) {
      const data = RemoteBranchDataSchema.safeParse(a.artifact.data);
      if (!data.success) {
        malformed.push(a.artifact.id);
        continue;
      }
      if (params.branch !== undefined && data.data.branch !== params.branch) continue;
      if (params.remote !== undefined && data.data.remote !== params.remote) continue;
      const key = JSON.stringify([data.data.remote, data.data.branch]);
      const previous = latestByBranch.get(key);
      if (previous === undefined || a.producer.seq >= previous.producer.seq) latestByBranch.set(key, a);
    }
    const candidates = [...latestByBranch.values()];
    if (candidates.length === 0) {
      const code =
        malformed.length > 0
          ? CompletionReasonCodes.invalidArtifactData
          : CompletionReasonCodes.branchMismatch;
      return makeVerdict(
        id,
        false,
        [code],
        malformed,
        'no observed remote branch matches the contract',
        evidence,
      );
    }
    const states = candidates.map((c) => verificationStateOf(c, evidence.verified));
    const good = states.find((s) => s.kind === 'passed');
    if (good !== undefined) {
      return makeVerdict(
        id,
        true,
        [CompletionReasonCodes.remoteBranchVerified],
        idsOf(good),
        'the remote branch is observed and verified',
      );
    }
    return makeVerdict(
      id,
      false,
      [failureCodeOf(states, evidence.verified)],
      states.flatMap(idsOf),
      'the observed remote branch has no passed linked verification',
      evidence,
    );
  },
);
