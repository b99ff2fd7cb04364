import type { RunFeatures } from './run-features.js';
import type { RunState } from './run-state.js';

/** A goal step the run is in: a model turn (`model-<callSeq>`) or a tool call (`tool-<seq>`). */
export interface CallStep {
  readonly stepId: string;
  attemptId: string;
}

/** What the step attempts need of the runner. */
export interface StepAttemptsHost {
  readonly state: RunState;
  readonly features: RunFeatures;
  readonly ports: { publish(state: RunState): void };
  emit(type: string, data: Record<string, unknown>): void;
}

/**
 * Which step and attempt the run's events belong to (their envelope's `stepId` and `attemptId`):
 * a graph node's attempt (`RunContext.enterStep`), or, under the step contracts
 * (`agent-run-step-contracts-v1`) in a run outside graph nodes (goal profiles), the model turn or tool
 * call in progress: `model-<callSeq>` with attempt id `model-<callSeq>#1`, `tool-<seq>` with
 * `tool-<seq>#<attempt>` (the run's attempt of the call: 2, 3, … for a write tried again).
 * Failure semantics: never throws.
 */
export class StepAttempts {
  /** The graph node attempt the run is in; its events carry the id. */
  private graph: { readonly id: string; readonly number: number } | undefined;
  /** The goal step in progress (step contracts, outside graph nodes). */
  private call: CallStep | undefined;

  constructor(private readonly host: StepAttemptsHost) {}

  /** The step id of the next event (the current goal step's, else the run's current node). */
  get stepId(): string | null {
    return this.call?.stepId ?? this.host.state.currentNode;
  }

  /** The attempt id of the next event, if it belongs to one. */
  get attemptId(): string | undefined {
    return this.call?.attemptId ?? this.graph?.id;
  }

  /** See `RunContext.enterStep`. */
  enter(stepId: string, attempt?: number): string | undefined {
    this.host.state.currentNode = stepId;
    this.graph =
      attempt === undefined
        ? undefined
        : { id: `${stepId}#${attempt}@${this.host.state.nextEventSeq}`, number: attempt };
    this.host.emit('step.started', attempt === undefined ? { stepId } : { stepId, attempt });
    this.host.ports.publish(this.host.state);
    return this.graph?.id;
  }

  /** See `RunContext.continueAttempt`. */
  continueAttempt(attemptId: string, attempt: number): void {
    this.graph = { id: attemptId, number: attempt };
  }

  /** See `RunContext.completeStep`. */
  complete(stepId: string): void {
    const s = this.host.state;
    if (!s.completedSteps.includes(stepId)) s.completedSteps.push(stepId);
    const attempt = this.graph;
    this.host.emit('step.completed', attempt ? { stepId, attempt: attempt.number } : { stepId });
    this.graph = undefined;
  }

  /**
   * Enter the goal step `stepId` (attempt 1) when the step contracts are on and the run is in no node
   * or other goal step; returns it for {@link leaveCall}, or undefined when nothing was entered.
   */
  enterCall(stepId: string): CallStep | undefined {
    if (this.call || this.graph || this.host.state.currentNode !== null) return undefined;
    if (!this.host.features.on('stepContracts')) return undefined;
    this.call = { stepId, attemptId: `${stepId}#1` };
    return this.call;
  }

  /** The goal step `step` moves to its attempt `attempt` (2, 3, …). */
  callAttempt(step: CallStep | undefined, attempt: number): void {
    if (step) step.attemptId = `${step.stepId}#${attempt}`;
  }

  /** Leave the goal step `step` (entered by {@link enterCall}; undefined: nothing). */
  leaveCall(step: CallStep | undefined): void {
    if (step && this.call === step) this.call = undefined;
  }

  /** The goal step in progress, if any. */
  get currentCall(): CallStep | undefined {
    return this.call;
  }
}
