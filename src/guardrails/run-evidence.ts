import { operatorAttestedWrites, verifiesAttested } from '../completion/evidence.js';
import { ArtifactSchema, type Artifact } from '../domain/artifact.js';
import type { InvocationSummary } from '../runner/run-state.js';

/** What the output guardrail needs of an invocation (a subset of the runner's {@link InvocationSummary}). */
export type EvidenceInvocation = Pick<InvocationSummary, 'seq' | 'status' | 'artifactIds'> & {
  readonly externalId?: string;
  readonly tool?: string;
  readonly effect?: InvocationSummary['effect'];
  readonly resolvedBy?: string;
};

/** An observed or verified artifact a trusted executor recorded, with the invocation that recorded it. */
export interface TrustedRunArtifact {
  readonly artifact: Artifact;
  readonly seq: number;
  readonly invocationExternalId?: string;
}

export interface RunEvidence {
  readonly observed: readonly TrustedRunArtifact[];
  readonly verified: readonly TrustedRunArtifact[];
  /** Writes a person settled as succeeded naming the external id (no artifact: the activity was lost). */
  readonly attested: readonly EvidenceInvocation[];
}

/**
 * The run's trusted artifacts: provenance `observed` or `verified`, valid under the domain schema,
 * and listed by a `succeeded` invocation (the lowest seq is the producer). Model artifacts, and
 * artifacts no succeeded invocation vouches for, never count, whatever they say. Never throws.
 */
export function trustedEvidence(
  artifacts: readonly Artifact[],
  invocations: readonly EvidenceInvocation[],
): RunEvidence {
  const producer = new Map<string, EvidenceInvocation>();
  for (const inv of [...invocations].sort((a, b) => a.seq - b.seq)) {
    if (inv.status !== 'succeeded') continue;
    for (const id of inv.artifactIds) if (!producer.has(id)) producer.set(id, inv);
  }
  const observed: TrustedRunArtifact[] = [];
  const verified: TrustedRunArtifact[] = [];
  const seen = new Set<string>();
  for (const artifact of artifacts) {
    if (artifact.provenance === 'model' || seen.has(artifact.id)) continue;
    const inv = producer.get(artifact.id);
    if (inv === undefined || !ArtifactSchema.safeParse(artifact).success) continue;
    seen.add(artifact.id);
    const entry = {
      artifact,
      seq: inv.seq,
      ...(inv.externalId !== undefined ? { invocationExternalId: inv.externalId } : {}),
    };
    (artifact.provenance === 'observed' ? observed : verified).push(entry);
  }
  return { observed, verified, attested: operatorAttestedWrites(invocations) };
}

/** True when `check` is a passed verification of `subject`, recorded by a later invocation. */
export function verifiesSubject(check: TrustedRunArtifact, subject: TrustedRunArtifact): boolean {
  const v = check.artifact.verification;
  if (v?.status !== 'passed' || check.seq <= subject.seq) return false;
  if (v.subject.artifactId !== undefined && v.subject.artifactId !== subject.artifact.id) return false;
  if (v.subject.externalId !== undefined) {
    const ids = [subject.artifact.externalId, subject.invocationExternalId].filter((id) => id !== undefined);
    if (!ids.includes(v.subject.externalId)) return false;
  }
  return true;
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
  const direct = evidence.verified.some(
    (v) => types.includes(v.artifact.type) && v.artifact.verification?.status === 'passed',
  );
  const attested = evidence.attested.filter((w) => w.tool !== undefined && actionTools.includes(w.tool));
  const passedChecks = evidence.verified.filter((v) => v.artifact.verification?.status === 'passed');
  if (
    direct ||
    actions.some((a) => evidence.verified.some((v) => verifiesSubject(v, a))) ||
    attested.some((w) => passedChecks.some((v) => verifiesAttested(v, w)))
  )
    return 'verified';
  return actions.length > 0 ? 'observed' : 'none';
}
