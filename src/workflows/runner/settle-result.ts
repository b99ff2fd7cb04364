import type { Artifact } from '../../contract/artifact.js';
import type { Observation } from '../../contract/observation.js';
import { resultObservation, type ObservationBase } from '../../contract/observation-text.js';
import type { ToolCallResult } from './ports.js';
import { taintFactUpdates } from '../guardrails/data-taint.js';
import type { RunCore } from './run-core.js';
import type { InvocationSummary } from './run-state.js';

/**
 * Record a tool result on its invocation: executors may only produce observed or verified artifacts
 * (a model-provenance artifact is rejected with an `artifact.rejected` event); an artifact already in
 * the run is not added twice. A succeeded call that is the first of its kind, or brought new
 * artifacts, resets the no-progress counter. Emits `tool.completed` or `tool.failed` (with the result's
`activityAttempt` under the event envelope of `agent-run-event-envelope-v1`). Never throws.
 */
export function settleResult(
  core: RunCore,
  invocation: InvocationSummary,
  base: ObservationBase,
  result: ToolCallResult,
  firstOfItsKind: boolean,
  resolvedBy: string | undefined,
): Observation {
  const { state } = core;
  const accepted: Artifact[] = [];
  for (const a of result.artifacts) {
    if (a.provenance === 'model') {
      core.emit('artifact.rejected', {
        id: a.id,
        code: 'artifact.forged_provenance',
        seq: invocation.seq,
      });
      continue;
    }
    if (!state.artifacts.some((x) => x.id === a.id)) accepted.push(a);
  }
  state.artifacts.push(...accepted);
  invocation.status = result.status;
  invocation.artifactIds = accepted.map((a) => a.id);
  if (result.externalId !== undefined) invocation.externalId = result.externalId;
  if (result.errorCode !== undefined) invocation.errorCode = result.errorCode;
  if (resolvedBy) invocation.resolvedBy = resolvedBy;
  if (result.status === 'succeeded' && (firstOfItsKind || accepted.length > 0))
    state.budget.stepsWithoutProgress = 0;
  // Secrets and personal data the result carried, by digest (docs/guardrails.md, "Data read from tools").
  if (result.taint !== undefined) {
    const updates = taintFactUpdates(state.facts, result.taint);
    for (const [fact, digests] of Object.entries(updates))
      if (digests !== undefined) state.facts[fact] = digests;
    if (Object.keys(updates).length > 0)
      core.emit('data.tainted', {
        seq: invocation.seq,
        tool: invocation.tool,
        secrets: result.taint.secret.length,
        personal: result.taint.personal.length,
      });
  }
  core.emit(result.status === 'succeeded' ? 'tool.completed' : 'tool.failed', {
    seq: invocation.seq,
    tool: invocation.tool,
    version: invocation.version,
    status: result.status,
    artifactIds: invocation.artifactIds,
    externalId: result.externalId ?? null,
    resolvedBy: resolvedBy ?? null,
    // The Temporal activity attempt (or the run's attempt of a write) that produced the result.
    ...(core.eventEnvelope && result.attempt !== undefined ? { activityAttempt: result.attempt } : {}),
  });
  return resultObservation(base, { ...result, artifacts: accepted });
}
