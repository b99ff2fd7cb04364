import type { DataClassification } from '../../contract/agent-event.js';
import { classifyFields, DEFAULT_FIELD_RULES, stricter } from '../../contract/field-classification.js';

/** The components of the harness that produce events (the envelope's `producer`). */
export type EventProducer =
  | 'runner'
  | 'graph'
  | 'model_gateway'
  | 'tool_pipeline'
  | 'policy'
  | 'human_gate'
  | 'thread_memory'
  | 'guardrail'
  | 'completion'
  | 'router'
  | 'planner'
  | 'profile';

/** What the catalogue says of one event type. */
export interface CatalogueEntry {
  readonly producer: EventProducer;
  /** The type's base classification; a field of its data the field rules classify stricter raises it. */
  readonly classification: DataClassification;
}

const entry = (producer: EventProducer, classification: DataClassification): CatalogueEntry => ({
  producer,
  classification,
});

/**
 * The event catalogue (docs/events.md, "Catalogue", lists the same table; a test keeps them equal):
 * for each event type the runtime emits, the component that produces it and its base data
 * classification. `public`: the run's progress as its requester may see it; `internal`: operational
 * detail for operators and evaluation.
 */
export const EVENT_CATALOGUE: Readonly<Record<string, CatalogueEntry>> = {
  'run.created': entry('runner', 'internal'),
  'run.started': entry('runner', 'internal'),
  'run.paused': entry('human_gate', 'public'),
  'run.completed': entry('runner', 'public'),
  'run.failed': entry('runner', 'public'),
  'run.cancelled': entry('runner', 'public'),
  'run.outcome_delivered': entry('runner', 'public'),
  'tool.worker_refused': entry('tool_pipeline', 'internal'),
  'run.sealed': entry('runner', 'public'),
  'state.transitioned': entry('runner', 'public'),
  'checkpoint.saved': entry('runner', 'public'),
  'step.started': entry('runner', 'public'),
  'step.completed': entry('runner', 'public'),
  'step.failed': entry('graph', 'public'),
  'route.decided': entry('graph', 'internal'),
  'route.capability_excluded': entry('graph', 'internal'),
  'route.tool_refused': entry('router', 'internal'),
  'route.gate_enforced': entry('tool_pipeline', 'internal'),
  'plan.proposed': entry('planner', 'internal'),
  'plan.admitted': entry('planner', 'internal'),
  'plan.rejected': entry('planner', 'internal'),
  'plan.step_started': entry('planner', 'public'),
  'plan.step_completed': entry('planner', 'public'),
  'plan.replanned': entry('planner', 'internal'),
  'plan.fallback': entry('planner', 'internal'),
  'model.started': entry('model_gateway', 'internal'),
  'model.requested': entry('model_gateway', 'internal'),
  'model.fallback': entry('model_gateway', 'internal'),
  'model.failed': entry('model_gateway', 'internal'),
  'model.worker_refused': entry('model_gateway', 'internal'),
  'model.completed': entry('model_gateway', 'internal'),
  'tool.proposed': entry('tool_pipeline', 'internal'),
  'tool.authorized': entry('tool_pipeline', 'internal'),
  'tool.completed': entry('tool_pipeline', 'internal'),
  'tool.failed': entry('tool_pipeline', 'internal'),
  'tool.resolution_failed': entry('tool_pipeline', 'internal'),
  'tool.attempt_failed': entry('tool_pipeline', 'internal'),
  'recovery.decided': entry('tool_pipeline', 'internal'),
  'human.decision_superseded': entry('tool_pipeline', 'internal'),
  'policy.decided': entry('policy', 'internal'),
  'obligation.denied': entry('policy', 'internal'),
  'audit.recorded': entry('policy', 'internal'),
  'fact.recorded': entry('runner', 'internal'),
  'fact.rejected': entry('runner', 'internal'),
  'fact.withdrawn': entry('runner', 'internal'),
  'artifact.recorded': entry('runner', 'internal'),
  'artifact.rejected': entry('runner', 'internal'),
  'data.tainted': entry('guardrail', 'internal'),
  'data.taint_held': entry('tool_pipeline', 'internal'),
  'memory.recalled': entry('thread_memory', 'internal'),
  'memory.written': entry('thread_memory', 'internal'),
  'memory.refused': entry('thread_memory', 'internal'),
  'human.requested': entry('human_gate', 'internal'),
  'human.decided': entry('human_gate', 'internal'),
  'human.approval_recorded': entry('human_gate', 'internal'),
  'human.signal_rejected': entry('human_gate', 'internal'),
  'human.signal_rejections_suppressed': entry('human_gate', 'internal'),
  'human.wait_continued': entry('human_gate', 'internal'),
  'human.escalated': entry('human_gate', 'internal'),
  'human.more_info_requested': entry('human_gate', 'internal'),
  'human.more_info_answered': entry('human_gate', 'internal'),
  'human.more_info_expired': entry('human_gate', 'internal'),
  'human.request_expired': entry('human_gate', 'internal'),
  'principals.loaded': entry('human_gate', 'internal'),
  'guardrail.input_checked': entry('guardrail', 'internal'),
  'guardrail.output_checked': entry('guardrail', 'internal'),
  'guardrail.output_retried': entry('guardrail', 'internal'),
  'guardrail.tool_output_flagged': entry('guardrail', 'internal'),
  'budget.warning': entry('runner', 'internal'),
  'budget.exhausted': entry('runner', 'internal'),
  'eval.completed': entry('completion', 'internal'),
};

/** A type the catalogue does not list (a profile's own `ctx.emit`): produced by the profile. */
const PROFILE_EVENT = entry('profile', 'internal');

/**
 * Producer and classification of an event of `type` with `data`: the catalogue's producer; the
 * stricter of the catalogue's base classification (or `requested`, when the emitter asks for one) and
 * the strictest classification the public projection's field rules give a key of `data`, so an event
 * carrying a secret-like field is `restricted` and one carrying contact data `confidential`. Pure.
 */
export function envelopeOf(
  type: string,
  data: Readonly<Record<string, unknown>>,
  requested?: DataClassification,
): { readonly producer: EventProducer; readonly classification: DataClassification } {
  const known = EVENT_CATALOGUE[type] ?? PROFILE_EVENT;
  const base = requested ?? known.classification;
  const fields = classifyFields(data, DEFAULT_FIELD_RULES);
  return { producer: known.producer, classification: fields ? stricter(base, fields) : base };
}
