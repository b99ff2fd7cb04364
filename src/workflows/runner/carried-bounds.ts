import type { Artifact } from '../../contract/artifact.js';
import type { InvocationSummary, RunState } from './run-state.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * How much of the run's per-step lists a generation hands to the next on continue-as-new. Within a
 * generation nothing is dropped; the budget counters (`budget.steps`, `toolCalls`, `perTool`, ...)
 * always count the whole run.
 */
export interface CarryBounds {
  /** The most recent invocation summaries carried (more are kept, see {@link boundCarriedState}). */
  readonly invocations: number;
  /** The most recent artifacts carried, at most this many ... */
  readonly artifacts: number;
  /** ... and at most this many characters of them as JSON. */
  readonly artifactBytes: number;
  /** The most recently used duplicate-call digests (`budget.callDigests`) carried. */
  readonly callDigests: number;
  /** The most recent completed step ids carried. */
  readonly completedSteps: number;
}

/**
 * The harness's bounds. The carried state then stays under ~400 KiB whatever the run's length
 * (artifacts at their byte bound, 256 digests of ~90 bytes, 2 x 64 summaries of ~200 bytes), well
 * inside Temporal's 2 MB payload limit; a run without artifacts carries ~60 KiB.
 */
export const CARRY_BOUNDS: CarryBounds = {
  invocations: 64,
  artifacts: 64,
  artifactBytes: 256 * 1024,
  callDigests: 256,
  completedSteps: 64,
};

/** Invocations the runner may still change or wait on. */
function isOpen(i: InvocationSummary): boolean {
  return i.status === 'pending' || i.status === 'outcome_unknown';
}

/** The newest artifacts within the count and byte bounds, in their original order. */
function newestArtifacts(artifacts: readonly Artifact[], bounds: CarryBounds): Artifact[] {
  const kept: Artifact[] = [];
  let bytes = 0;
  for (let k = artifacts.length - 1; k >= 0 && kept.length < bounds.artifacts; k--) {
    const a = artifacts[k]!;
    bytes += JSON.stringify(a).length;
    if (bytes > bounds.artifactBytes) break;
    kept.push(a);
  }
  return kept.reverse();
}

/**
 * The call digests most recently used, at most `limit`, oldest first (so the order carried is the
 * order of use). Recency is the highest invocation seq with that key (the runner adds an invocation
 * for every counted call); a key of no carried invocation (carried from an earlier generation) is
 * older than all others, and such keys keep their carried order.
 */
function recentDigests(
  digests: Readonly<Record<string, number>>,
  invocations: readonly InvocationSummary[],
  limit: number,
): Record<string, number> {
  const keys = Object.keys(digests);
  if (keys.length <= limit) return { ...digests };
  const lastUse = new Map<string, number>();
  for (const i of invocations) {
    const key = `${versionedName(i.tool, i.version)}#${i.argsDigest}`;
    lastUse.set(key, Math.max(lastUse.get(key) ?? -1, i.seq));
  }
  const rank = keys.map((key, order) => ({ key, order, seq: lastUse.get(key) ?? -1 }));
  rank.sort((a, b) => b.seq - a.seq || b.order - a.order);
  const out: Record<string, number> = {};
  for (const r of rank.slice(0, limit).reverse()) out[r.key] = digests[r.key]!;
  return out;
}

/**
 * The state a generation carries to the next on continue-as-new: `state` with its per-step lists
 * bounded by `bounds`. Everything left out is in the run's events and the evidence store (every
 * invocation's intent and result, every artifact). Pure and deterministic: the same state gives the
 * same carried state; `state` itself is not changed. Never throws.
 *
 * What is carried, and what that means for the checks that read it:
 * - `artifacts`: the newest within {@link CarryBounds.artifacts} and {@link CarryBounds.artifactBytes}.
 * - `invocations`: the newest {@link CarryBounds.invocations}, every one still open (`pending`,
 *   `outcome_unknown`) or named by the pending action, and the producer of every carried
 *   observed/verified artifact (the first succeeded invocation listing it, as `collectEvidence`
 *   picks it). So the evidence that completion evaluators and the output guardrail build from the
 *   carried state is exactly the evidence of the carried artifacts: an older artifact, or an older
 *   operator-attested write, no longer counts. That fails closed (less trusted evidence, never more):
 *   a completion or an output that relies on evidence older than the bounds is refused, not passed.
 *   A fact recorded later against a dropped artifact is rejected (`fact.unverified_evidence`).
 * - `budget.callDigests` (duplicate-call detection): the {@link CarryBounds.callDigests} most
 *   recently used keys, with their counts. Detection is exact within a generation and, across
 *   continue-as-new, for a call repeated within the last 256 distinct calls; a call that comes back
 *   after more distinct calls than that starts counting again. A loop of repeated calls is caught by
 *   then; a longer cycle is left to `maxToolCalls` and `maxStepsWithoutProgress`.
 * - `completedSteps` (shown by the `state` query, read by nothing else): the newest
 *   {@link CarryBounds.completedSteps}.
 * Everything else is carried whole: it is bounded already (transitions, findings, obligations,
 * signal rejections) or by the run's definition (facts, per-tool counts, the profile's state).
 */
export function boundCarriedState(state: RunState, bounds: CarryBounds = CARRY_BOUNDS): RunState {
  const artifacts = newestArtifacts(state.artifacts, bounds);
  const keep = new Set<number>();
  const bySeq = [...state.invocations].sort((a, b) => a.seq - b.seq);
  for (const i of bySeq.slice(Math.max(0, bySeq.length - bounds.invocations))) keep.add(i.seq);
  for (const i of bySeq) if (isOpen(i)) keep.add(i.seq);
  const pendingSeq = state.pendingAction?.invocationSeq;
  if (pendingSeq !== undefined) keep.add(pendingSeq);
  const producerOf = new Map<string, number>();
  for (const i of bySeq) {
    if (i.status !== 'succeeded') continue;
    for (const id of i.artifactIds) if (!producerOf.has(id)) producerOf.set(id, i.seq);
  }
  for (const a of artifacts) {
    const seq = producerOf.get(a.id);
    if (a.provenance !== 'model' && seq !== undefined) keep.add(seq);
  }
  return {
    ...state,
    budget: {
      ...state.budget,
      callDigests: recentDigests(state.budget.callDigests, state.invocations, bounds.callDigests),
    },
    invocations: state.invocations.filter((i) => keep.has(i.seq)),
    artifacts,
    completedSteps: state.completedSteps.slice(
      Math.max(0, state.completedSteps.length - bounds.completedSteps),
    ),
  };
}
