import type { Artifact } from '../../contract/artifact.js';
import { ArtifactSchema } from '../../contract/artifact.js';
import type { CompletionInput, InvocationRecord } from './completion.js';

/**
 * Trusted evidence of a run, as completion evaluators see it.
 *
 * An artifact counts only when its provenance is `observed` or `verified`, it satisfies the domain
 * artifact schema, and a `succeeded` invocation lists it among the artifacts its trusted executor
 * recorded (the first such invocation by seq is its producer). Model artifacts never count,
 * whatever their type or data say.
 */

/** What an invocation must tell to vouch for artifacts (the completion's InvocationRecord has more). */
export type Producer = Pick<InvocationRecord, 'seq' | 'status' | 'artifactIds'> & {
  readonly externalId?: string;
};

/** An observed or verified artifact with the invocation that recorded it. */
export interface TrustedArtifact<P extends Producer = InvocationRecord> {
  artifact: Artifact;
  producer: P;
}

export interface Evidence<P extends Producer = InvocationRecord> {
  observed: TrustedArtifact<P>[];
  verified: TrustedArtifact<P>[];
  /** Ids of observed/verified artifacts that were ignored (unattributed or malformed), in input order. */
  ignoredIds: string[];
}

/**
 * Build the trusted evidence of `input`, preserving artifact order. Used by the completion
 * evaluators and by the output guardrail, so both trust exactly the same artifacts.
 */
export function collectEvidence<P extends Producer = InvocationRecord>(input: {
  readonly artifacts: CompletionInput['artifacts'];
  readonly invocations: readonly P[];
}): Evidence<P> {
  const producers = new Map<string, P>();
  const bySeq = [...input.invocations].sort((a, b) => a.seq - b.seq);
  for (const inv of bySeq) {
    if (inv.status !== 'succeeded') continue;
    for (const id of inv.artifactIds) if (!producers.has(id)) producers.set(id, inv);
  }
  const evidence: Evidence<P> = { observed: [], verified: [], ignoredIds: [] };
  const seen = new Set<string>();
  for (const artifact of input.artifacts) {
    if (artifact.provenance === 'model') continue;
    const producer = producers.get(artifact.id);
    if (producer === undefined || seen.has(artifact.id) || !ArtifactSchema.safeParse(artifact).success) {
      evidence.ignoredIds.push(artifact.id);
      continue;
    }
    seen.add(artifact.id);
    (artifact.provenance === 'observed' ? evidence.observed : evidence.verified).push({ artifact, producer });
  }
  return evidence;
}

/**
 * True when `check` verifies `subject`: every id the verification subject names matches (the
 * artifact id; the external id of the artifact or of its producing invocation), and the check was
 * recorded by a later invocation than the subject (an independent check after the action).
 *
 * A check whose subject names an artifact id is bound to that one write (executors derive artifact
 * ids from the invocation's run and seq, its idempotency key): it vouches for no other write, even
 * one that observed the same external id. A subject naming only an external id vouches for every
 * earlier observation of that id; checks of a state that several writes can reach (a branch at a
 * commit) should name the write.
 */
export function verifies(check: TrustedArtifact<Producer>, subject: TrustedArtifact<Producer>): boolean {
  const target = check.artifact.verification?.subject;
  if (target === undefined || check.producer.seq <= subject.producer.seq) return false;
  if (target.artifactId !== undefined && target.artifactId !== subject.artifact.id) return false;
  if (target.externalId !== undefined) {
    const ids = [subject.artifact.externalId, subject.producer.externalId].filter((id) => id !== undefined);
    if (!ids.includes(target.externalId)) return false;
  }
  return true;
}

/**
 * The deciding check among `checks`: the one recorded by the highest invocation seq; when one
 * invocation recorded several, a `failed` one wins. Undefined for no checks.
 */
export function decidingCheck(checks: readonly TrustedArtifact[]): TrustedArtifact | undefined {
  let best: TrustedArtifact | undefined;
  for (const c of checks) {
    if (
      best === undefined ||
      c.producer.seq > best.producer.seq ||
      (c.producer.seq === best.producer.seq && c.artifact.verification?.status === 'failed')
    ) {
      best = c;
    }
  }
  return best;
}

/** True when the check's verification status is `passed`. */
export function passed(check: TrustedArtifact<Producer>): boolean {
  return check.artifact.verification?.status === 'passed';
}

/** The latest of `items` by producer seq (the later one in input order on ties), or undefined. */
export function latest(items: readonly TrustedArtifact[]): TrustedArtifact | undefined {
  let best: TrustedArtifact | undefined;
  for (const item of items) if (best === undefined || item.producer.seq >= best.producer.seq) best = item;
  return best;
}

/**
 * Writes a person settled as `succeeded` naming the effect's external id (a reconcile signal with
 * `externalId`): the activity was lost, so no executor observed the effect and no artifact exists;
 * the person's word stands in for the observation. Such a write counts as an action only together
 * with an independent verification of that id ({@link verifiesAttested}).
 */
export function operatorAttestedWrites<
  T extends Pick<InvocationRecord, 'status' | 'externalId' | 'artifactIds' | 'resolvedBy'> & {
    readonly effect?: string;
  },
>(invocations: readonly T[]): T[] {
  return invocations.filter(
    (i) =>
      i.status === 'succeeded' &&
      i.effect === 'write' &&
      i.resolvedBy?.startsWith('operator:') === true &&
      i.externalId !== undefined &&
      i.artifactIds.length === 0,
  );
}

/**
 * True when `check` verifies an operator-attested write: recorded by a later invocation, its subject
 * names exactly the write's external id (and no artifact, since the write has none).
 */
export function verifiesAttested(
  check: TrustedArtifact<Producer>,
  write: Pick<InvocationRecord, 'seq' | 'externalId'>,
): boolean {
  const target = check.artifact.verification?.subject;
  return (
    target !== undefined &&
    check.producer.seq > write.seq &&
    target.artifactId === undefined &&
    write.externalId !== undefined &&
    target.externalId === write.externalId
  );
}
