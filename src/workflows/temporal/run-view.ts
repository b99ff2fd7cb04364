import type { RunState } from '../runner/run-state.js';
import type { DecisionRecord } from '../authz/decision-authority.js';

/** What the `state` query returns: a bounded view of the run for operators and tools. */
export interface RunView {
  /** The run state schema version the run is on (2 in this build; carried older states are migrated). */
  readonly schemaVersion: RunState['schemaVersion'];
  readonly runId: string;
  readonly status: RunState['status'];
  readonly waitingReason: string | null;
  readonly currentNode: string | null;
  readonly stateVersion: number;
  readonly pendingAction: RunState['pendingAction'];
  readonly humanRequest: RunState['humanRequest'];
  /** Counts of the whole run, across continue-as-new. */
  readonly budget: Omit<RunState['budget'], 'callDigests'>;
  readonly limits: RunState['limits'];
  /**
   * This generation's invocations and the most recent ones the run carried into it (see
   * `boundCarriedState`): after continue-as-new, older ones are in the events and the evidence store.
   * The same holds for `artifacts` and `completedSteps`.
   */
  readonly invocations: {
    seq: number;
    tool: string;
    version: string;
    effect: string;
    status: string;
    externalId?: string;
    resolvedBy?: string;
  }[];
  readonly artifacts: {
    id: string;
    type: string;
    provenance: string;
    externalId?: string;
    verification?: unknown;
  }[];
  readonly versions: RunState['versions'];
  readonly completedSteps: string[];
  readonly facts: RunState['facts'];
  readonly terminalReason: RunState['terminalReason'];
  readonly output: unknown;
  /**
   * Signed runs: the verified decisions (action, decision, principal, key), newest last, bounded;
   * absent for runs from before signed decisions.
   */
  readonly decisions?: readonly DecisionRecord[];
  /** Signed runs: the arguments of the tool call that waits for a decision (what an approver approves). */
  readonly pendingArguments?: Readonly<Record<string, unknown>>;
  /** The tenant and user the run was started for (its input), when it names them. */
  readonly tenantId?: string;
  readonly userId?: string;
  /** Signed runs: the first execution run id, which decision tokens are bound to. */
  readonly firstExecutionRunId?: string;
  /** The last signals refused (malformed, stale, forged, repeated), newest last. */
  readonly signalRejections: NonNullable<RunState['signalRejections']>;
  /** Policy obligations in force (`mask.phone`...), applied by the output guardrail. */
  readonly obligations: RunState['obligations'];
  /** Compositions retried after the output guardrail blocked them. */
  readonly outputRetries: number;
}

export function toRunView(s: RunState): RunView {
  const { callDigests: _omit, ...budget } = s.budget;
  return {
    schemaVersion: s.schemaVersion,
    runId: s.runId,
    status: s.status,
    waitingReason: s.waitingReason,
    currentNode: s.currentNode,
    stateVersion: s.stateVersion,
    pendingAction: s.pendingAction,
    humanRequest: s.humanRequest,
    budget,
    limits: s.limits,
    invocations: s.invocations.map((i) => ({
      seq: i.seq,
      tool: i.tool,
      version: i.version,
      effect: i.effect,
      status: i.status,
      ...(i.externalId !== undefined ? { externalId: i.externalId } : {}),
      ...(i.resolvedBy !== undefined ? { resolvedBy: i.resolvedBy } : {}),
    })),
    artifacts: s.artifacts.map((a) => ({
      id: a.id,
      type: a.type,
      provenance: a.provenance,
      ...(a.externalId !== undefined ? { externalId: a.externalId } : {}),
      ...(a.verification !== undefined ? { verification: a.verification } : {}),
    })),
    versions: s.versions,
    completedSteps: s.completedSteps,
    facts: s.facts,
    terminalReason: s.terminalReason,
    output: s.output,
    signalRejections: s.signalRejections ?? [],
    obligations: s.obligations,
    outputRetries: s.outputRetries,
  };
}
