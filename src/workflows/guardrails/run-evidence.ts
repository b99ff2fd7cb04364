import {
  collectEvidence,
  operatorAttestedWrites,
  passed,
  verifies,
  verifiesAttested,
  type TrustedArtifact,
} from '../completion/evidence.js';
import type { Artifact } from '../../contract/artifact.js';
import type { InvocationSummary } from '../runner/run-state.js';

/** What the output guardrail needs of an invocation (a subset of the runner's {@link InvocationSummary}). */
export type EvidenceInvocation = Pick<InvocationSummary, 'seq' | 'status' | 'artifactIds'> & {
  readonly externalId?: string;
  readonly tool?: string;
  readonly effect?: InvocationSummary['effect'];
  readonly resolvedBy?: string;
};

/** An observed or verified artifact a trusted executor recorded, with the invocation that recorded it. */
export type TrustedRunArtifact = TrustedArtifact<EvidenceInvocation>;

export interface RunEvidence {
  readonly observed: readonly TrustedRunArtifact[];
  readonly verified: readonly TrustedRunArtifact[];
  /** Writes a person settled as succeeded naming the external id (no artifact: the activity was lost). */
  readonly attested: readonly EvidenceInvocation[];
}

/**
 * The run's trusted artifacts, by the same rules as the completion evaluators (`collectEvidence`):
 * provenance `observed` or `verified`, valid under the domain schema, and listed by a `succeeded`
 * invocation (the lowest seq is the producer). Model artifacts, and artifacts no succeeded
 * invocation vouches for, never count, whatever they say. Never throws.
 */
export function trustedEvidence(
  artifacts: readonly Artifact[],
  invocations: readonly EvidenceInvocation[],
): RunEvidence {
  const { observed, verified } = collectEvidence({ artifacts, invocations });
  return { observed, verified, attested: operatorAttestedWrites(invocations) };
}

/** How well the evidence backs an effect of the given artifact types. */
export type Backing = 'verified' | 'observed' | 'none';

/**
 * `verified` when a trusted observed artifact of one of `types` has a passed, linked, later
 * verification (or a passed verified artifact is itself of one of `types`, or a write of one of
 * `actionTools` settled by an operator has a passed later verification of exactly its external id);
 * `observed` when only the observation exists; `none` otherwise (an operator's word alone is not an
 * observation).
 */
export function backingOf(
  evidence: RunEvidence,
  types: readonly string[],
  actionTools: readonly string[] = [],
): Backing {
  const actions = evidence.observed.filter((o) => types.includes(o.artifact.type));
  const passedChecks = evidence.verified.filter(passed);
  const direct = passedChecks.some((v) => types.includes(v.artifact.type));
  const attested = evidence.attested.filter((w) => w.tool !== undefined && actionTools.includes(w.tool));
  if (
    direct ||
    actions.some((a) => passedChecks.some((v) => verifies(v, a))) ||
    attested.some((w) => passedChecks.some((v) => verifiesAttested(v, w)))
  )
    return 'verified';
  return actions.length > 0 ? 'observed' : 'none';
}
