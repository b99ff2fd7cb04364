import type { GuardrailFinding, InputGuardrailResult } from '../guardrails/index.js';
import type { Policy, PolicySubject } from '../policy/index.js';
import type { AgentEvent, DataClassification } from '../../contract/agent-event.js';
import type { RunnerPorts } from './ports.js';
import type { ActionDescriber } from './action-summary.js';
import type { DecisionRules } from '../../contract/policy-decision.js';
import type { RunFeatures } from './run-features.js';
import type { RunState } from './run-state.js';
import type { RunStatus } from '../../contract/statuses.js';
import type { StepAttempts } from './step-attempts.js';

/** Patch applied together with a status transition. */
export interface TransitionPatch {
  waitingReason?: string | null;
  currentNode?: string | null;
}

/** The runner internals its collaborators (tool pipeline, human gate) work through. */
export interface RunCore {
  readonly state: RunState;
  /** Record the obligations of a dispatched call's policy decision (the output guardrail applies them). */
  noteObligations(obligations: readonly string[]): void;
  /** Keep guardrail findings in the run state (bounded). */
  recordFindings(stage: 'input' | 'output', source: string, findings: readonly GuardrailFinding[]): void;
  /** Run the input guardrail on `value` and emit `guardrail.input_checked`; undefined when the run has none. */
  guardInput(source: string, value: unknown): InputGuardrailResult | undefined;
  readonly ports: RunnerPorts;
  /** The behaviours the run takes only when its host says so (run-features.ts). */
  readonly features: RunFeatures;
  readonly policy: Policy;
  /** The rules the run's policy decisions come from: its pinned policy bundle, or the code. */
  readonly decisionRules: DecisionRules;
  /** The run's tenant and user, passed into every policy request. */
  readonly subject: PolicySubject | undefined;
  readonly profileTools: readonly string[];
  /** The profile's phrasing of a tool call for the person asked about it (see {@link ActionDescriber}). */
  readonly describeAction: ActionDescriber | undefined;
  /**
   * Does the run write the event envelope of `agent-run-event-envelope-v1` (catalogue producer and
   * classification, OTel trace id, `run.paused`, `model.started`, `model.failed`)? Decided at its start.
   */
  readonly eventEnvelope: boolean;
  /**
   * Append an event to the outbox. `classification`: the emitter's own classification (under the
   * event envelope, raised by the field rules like the catalogue's); default the catalogue's.
   */
  emit(type: string, data: Record<string, unknown>, classification?: DataClassification): void;
  transition(to: RunStatus, patch?: TransitionPatch): void;
  /** Events emitted but not yet stored; taken (and cleared) by the next activity. */
  takeOutbox(): AgentEvent[];
  /**
   * Put events taken for an activity that did not complete back in front of the outbox: they are sent
   * again with the next activity or flush (the store keeps one copy per run and sequence).
   */
  requeue(events: readonly AgentEvent[]): void;
  /** Emit a `budget.warning` for each budget that newly crossed `warnAtFraction` of its limit. */
  warnBudgets(): void;
  /** The step attempt the run's events belong to (graph node or goal step). */
  readonly steps: StepAttempts;
  /** True once a valid `cancelRun` signal was received. */
  isCancelRequested(): boolean;
  /** Is `err` the host's cancellation (a cancelled scope or timer)? */
  isCancellation(err: unknown): boolean;
}
