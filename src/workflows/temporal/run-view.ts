import type { RunState } from '../runner/run-state.js';
import type { DecisionRecord } from '../authz/decision-authority.js';
import { routingView } from '../routed/routed-view.js';
import type {
  RunBudgetLimits,
  RunBudgetUsage,
  RunDecisionRecord,
  RunFacts,
  RunRouting,
  RunSignalRejection,
  RunTerminalReason,
  RunView,
} from '../../contract/run-view.js';

/** What the `state` query returns: written out in the contract (src/contract/run-view.ts). */
export type { RunView } from '../../contract/run-view.js';

/**
 * The contract writes the view out; these hold it to the run state it shows, so a field added,
 * removed or retyped on either side fails the build. `Same<A, B>` is `true` only when each is
 * assignable to the other and both have the same keys (an optional field added on one side too).
 */
type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;
type Budget = Omit<RunState['budget'], 'callDigests'>;
type SignalRejection = NonNullable<RunState['signalRejections']>[number];
type InvocationView = Pick<
  RunState['invocations'][number],
  'seq' | 'tool' | 'version' | 'effect' | 'status' | 'externalId' | 'resolvedBy'
>;
type ArtifactView = Pick<
  RunState['artifacts'][number],
  'id' | 'type' | 'provenance' | 'externalId' | 'verification'
>;
/** Compiles only when every check is `true`. */
type AllTrue<T extends Record<string, true>> = T;
type _RunViewMatchesRunState = AllTrue<{
  schemaVersion: Same<RunState['schemaVersion'], RunView['schemaVersion']>;
  status: Same<RunState['status'], RunView['status']>;
  pendingAction: Same<RunState['pendingAction'], RunView['pendingAction']>;
  humanRequest: Same<RunState['humanRequest'], RunView['humanRequest']>;
  budget: Same<Budget, RunBudgetUsage>;
  limits: Same<RunState['limits'], RunBudgetLimits>;
  versions: Same<RunState['versions'], RunView['versions']>;
  facts: Same<RunState['facts'], RunFacts>;
  terminalReason: Same<NonNullable<RunState['terminalReason']>, RunTerminalReason>;
  signalRejections: Same<SignalRejection, RunSignalRejection>;
  obligations: Same<RunState['obligations'], RunView['obligations']>;
  decisions: Same<DecisionRecord, RunDecisionRecord>;
  invocationKeys: Same<keyof InvocationView, keyof RunView['invocations'][number]>;
  artifactKeys: Same<keyof ArtifactView, keyof RunView['artifacts'][number]>;
}>;

/** The `routing` field of a routed run's view; nothing for other profiles. */
function routingOf(profileState: RunState['profileState']): { routing?: RunRouting } {
  const routing = routingView(profileState);
  return routing ? { routing } : {};
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
    ...routingOf(s.profileState),
  };
}
