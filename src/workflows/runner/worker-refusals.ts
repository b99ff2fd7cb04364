import { TOOL_DEFINITION_CHANGED } from '../../contract/failure-types.js';
import type { ToolActivityOutcome } from './ports.js';
import type { RunCore } from './run-core.js';
import type { InvocationSummary } from './run-state.js';

/**
 * Record that workers refused a call before one served it (or before the run gave up): `tool.worker_refused`
 * with the reason code of the last refusal (`worker.tool_definition_changed`, or in runs with a config
 * pin `worker.config_changed`) and the count. Nothing when none refused.
 */
export function noteWorkerRefusals(
  core: RunCore,
  invocation: InvocationSummary,
  outcome: ToolActivityOutcome,
): void {
  const refusals =
    outcome.kind === 'completed' || outcome.kind === 'failed' ? outcome.workerRefusals : undefined;
  if (refusals === undefined) return;
  core.emit('tool.worker_refused', {
    seq: invocation.seq,
    tool: invocation.tool,
    version: invocation.version,
    code:
      (outcome.kind === 'completed' || outcome.kind === 'failed' ? outcome.refusedWith : undefined) ??
      TOOL_DEFINITION_CHANGED,
    refusals,
  });
}

/** How often workers refused a model call before one answered (or before the run gave up), and why. */
export interface ModelRefusals {
  readonly refusals: number;
  readonly code: string;
}

/**
 * Record that workers refused a model call (runs with the config pin, `configPin`): `model.worker_refused`
 * `{ callSeq, purpose, modelRoute, code, refusals }`, with the last refusal's code
 * (`model.unknown_route`, `model.route_changed`, `worker.config_changed`). Nothing when none refused
 * or the run has no config pin (older runs: the refusals are only in the history).
 */
export function noteModelRefusals(
  core: RunCore,
  call: { readonly callSeq: number; readonly purpose: string; readonly modelRoute: string },
  refused: ModelRefusals | undefined,
): void {
  if (refused === undefined || !core.features.on('configPin')) return;
  core.emit('model.worker_refused', { ...call, code: refused.code, refusals: refused.refusals });
}
