import type { CompletionVerdict } from './completion.js';
import { CompletionReasonCodes } from './completion-reason-codes.js';
import type { Evidence, TrustedArtifact } from './evidence.js';
import { decidingCheck, passed, verifies } from './evidence.js';

/** Whether an observed subject is verified: by its deciding linked check, if any. */
export type VerificationState =
  | { kind: 'passed' | 'failed'; subject: TrustedArtifact; check: TrustedArtifact }
  | { kind: 'unverified'; subject: TrustedArtifact };

/** The state of `subject` given the candidate `checks` (see {@link verifies} and {@link decidingCheck}). */
export function verificationStateOf(
  subject: TrustedArtifact,
  checks: readonly TrustedArtifact[],
): VerificationState {
  const check = decidingCheck(checks.filter((c) => verifies(c, subject)));
  if (check === undefined) return { kind: 'unverified', subject };
  return { kind: passed(check) ? 'passed' : 'failed', subject, check };
}

/** Whether a subject that is not an artifact (an operator-settled write) is verified, by its deciding check. */
export type CheckState =
  { kind: 'passed' | 'failed'; check: TrustedArtifact } | { kind: 'unverified'; check?: undefined };

/** The state a deciding check (or none) gives its subject. */
export function checkStateOf(check: TrustedArtifact | undefined): CheckState {
  if (check === undefined) return { kind: 'unverified' };
  return { kind: passed(check) ? 'passed' : 'failed', check };
}

/**
 * The reason code for subjects that are not all passed: `completion.no_verified_artifact` when
 * there are no candidate checks, `completion.verification_failed` when a deciding check failed,
 * otherwise `completion.unlinked_verification`.
 */
export function failureCodeOf(
  states: readonly (VerificationState | CheckState)[],
  checks: readonly TrustedArtifact[],
): string {
  if (checks.length === 0) return CompletionReasonCodes.noVerifiedArtifact;
  if (states.some((s) => s.kind === 'failed')) return CompletionReasonCodes.verificationFailed;
  return CompletionReasonCodes.unlinkedVerification;
}

/** Artifact ids a state rests on: the subject, and its deciding check when there is one. */
export function idsOf(state: VerificationState): string[] {
  return state.kind === 'unverified'
    ? [state.subject.artifact.id]
    : [state.subject.artifact.id, state.check.artifact.id];
}

/**
 * Assemble a verdict: ids deduplicated in order; a failing verdict also carries
 * `completion.unattributed_artifact_ignored` when trusted-looking artifacts were ignored.
 */
export function makeVerdict(
  evaluator: string,
  ok: boolean,
  codes: readonly string[],
  ids: readonly string[],
  summary: string,
  evidence?: Evidence,
): CompletionVerdict {
  const reasonCodes = [...codes];
  if (!ok && evidence !== undefined && evidence.ignoredIds.length > 0) {
    reasonCodes.push(CompletionReasonCodes.unattributedArtifactIgnored);
  }
  return {
    evaluator,
    passed: ok,
    reasonCodes: [...new Set(reasonCodes)],
    evidenceArtifactIds: [...new Set(ids)],
    summary,
  };
}
