import type { AgentEvent, DataClassification } from '../../contract/agent-event.js';
import { envelopeOf } from './event-catalogue.js';
import type { RunState } from './run-state.js';

/** Where the next event of a run comes from: its state, envelope, step attempt and clock. */
export interface RunEventSource {
  /** The run's state: its event sequence, ids, current node and versions. */
  readonly state: RunState;
  /**
   * The event envelope of `agent-run-event-envelope-v1` (see `RunnerOptions.eventEnvelope`); absent:
   * the envelope of runs from before it (trace id = run id, producer `runner`).
   */
  readonly envelope: { readonly traceId: string } | undefined;
  /** The id of the step attempt the run is in (see step-attempts.ts), or undefined. */
  readonly attemptId: string | undefined;
  /** The step the event belongs to, when not the state's current node (a goal step, step-attempts.ts). */
  readonly stepId?: string | null;
  /** Current time from the workflow clock (ISO). */
  readonly now: () => string;
}

/**
 * The run's next event of `type`: it takes the state's next event sequence number and gets its
 * envelope (producer and classification from the event catalogue under the event envelope, raised
 * by `classification`; else producer `runner` and `classification`, default `internal`).
 * Failure semantics: never throws.
 */
export function nextRunEvent(
  source: RunEventSource,
  type: string,
  data: Record<string, unknown>,
  classification?: DataClassification,
): AgentEvent {
  const s = source.state;
  const sequence = s.nextEventSeq;
  s.nextEventSeq += 1;
  const v1 = source.envelope;
  const envelope = v1
    ? envelopeOf(type, data, classification)
    : { producer: 'runner', classification: classification ?? 'internal' };
  return {
    schemaVersion: '1',
    eventId: `${s.runId}:${sequence}`,
    traceId: v1?.traceId ?? s.runId,
    runId: s.runId,
    threadId: s.threadId,
    stepId: source.stepId ?? s.currentNode,
    attemptId: source.attemptId ?? null,
    sequence,
    type,
    occurredAt: source.now(),
    producer: envelope.producer,
    data,
    dataClassification: envelope.classification,
    versions: s.versions,
  };
}
