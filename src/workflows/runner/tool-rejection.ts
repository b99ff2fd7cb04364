import type { Observation } from '../../contract/observation.js';
import { rejectedObservation, type ObservationBase } from '../../contract/observation-text.js';
import type { RunCore } from './run-core.js';

/**
 * Reject a proposed tool call before its effect: record `tool.failed` (status `rejected`, the
 * stable `code`) and return the rejection's observation, which the model reads. Nothing is dispatched.
 * Failure semantics: never throws.
 */
export function rejectCall(
  core: Pick<RunCore, 'emit'>,
  base: ObservationBase,
  code: string,
  message: string,
  details?: Record<string, unknown>,
): Observation {
  core.emit('tool.failed', {
    tool: base.tool,
    version: base.version,
    status: 'rejected',
    errorCode: code,
    message,
    details,
  });
  return rejectedObservation(base, code, message, details);
}
