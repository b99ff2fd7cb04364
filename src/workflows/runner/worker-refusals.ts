import { TOOL_DEFINITION_CHANGED } from '../../contract/failure-types.js';
import type { ToolActivityOutcome } from './ports.js';
import type { RunCore } from './run-core.js';
import type { InvocationSummary } from './run-state.js';

/**
 * Record that workers refused a call before one served it (or before the run gave up): `tool.worker_refused`
 * with the reason code `worker.tool_definition_changed` and the count. Nothing when none refused.
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
    code: TOOL_DEFINITION_CHANGED,
    refusals,
  });
}
