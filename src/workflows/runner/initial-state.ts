import type { BudgetLimits } from './budget.js';
import { emptyUsage } from './budget.js';
import { RUN_STATE_SCHEMA_VERSION, type RunState, type RunVersions } from './run-state.js';

export interface InitialStateOptions {
  readonly runId: string;
  readonly threadId?: string;
  readonly versions: RunVersions;
  readonly limits: BudgetLimits;
  /** ISO time of the run's start (the workflow clock). */
  readonly startedAt: string;
}

/** A fresh run state (current schema version) in status `created`, sequence numbers at 1. */
export function createInitialRunState(o: InitialStateOptions): RunState {
  return {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    runId: o.runId,
    threadId: o.threadId ?? o.runId,
    status: 'created',
    waitingReason: null,
    currentNode: null,
    stateVersion: 0,
    versions: o.versions,
    limits: o.limits,
    budget: emptyUsage(),
    invocations: [],
    artifacts: [],
    pendingAction: null,
    humanRequest: null,
    nextSeq: 1,
    nextModelCall: 1,
    nextEventSeq: 1,
    completedSteps: [],
    facts: {},
    profileState: {},
    output: null,
    terminalReason: null,
    recentTransitions: [],
    startedAt: o.startedAt,
    obligations: [],
    guardrailFindings: [],
    outputRetries: 0,
  };
}
