import type { RunVersions } from './agent-event.js';
import type { HumanRequest, PendingAction } from './pending-action.js';
import type { RunStatus } from './statuses.js';

/**
 * What the `state` query answers (QUERY_NAMES.state): a bounded view of a run for operators and tools,
 * written out here so the client, the CLI and the service read it without the workflow side's types.
 * The workflow builds it (src/workflows/temporal/run-view.ts, `toRunView`), checked against these
 * shapes at compile time.
 */
export interface RunView {
  /** The run state schema version the run is on (2 in this build; carried older states are migrated). */
  readonly schemaVersion: 2;
  readonly runId: string;
  readonly status: RunStatus;
  readonly waitingReason: string | null;
  readonly currentNode: string | null;
  readonly stateVersion: number;
  readonly pendingAction: PendingAction | null;
  readonly humanRequest: HumanRequest | null;
  /** Counts of the whole run, across continue-as-new. */
  readonly budget: RunBudgetUsage;
  readonly limits: RunBudgetLimits;
  /**
   * This generation's invocations and the most recent ones the run carried into it: after
   * continue-as-new, older ones are in the events and the evidence store. The same holds for
   * `artifacts` and `completedSteps`.
   */
  readonly invocations: RunViewInvocation[];
  readonly artifacts: RunViewArtifact[];
  readonly versions: RunVersions;
  readonly completedSteps: string[];
  readonly facts: RunFacts;
  readonly terminalReason: RunTerminalReason | null;
  readonly output: unknown;
  /**
   * Signed runs: the verified decisions (action, decision, principal, key), newest last, bounded;
   * absent for runs from before signed decisions.
   */
  readonly decisions?: readonly RunDecisionRecord[];
  /** Signed runs: the arguments of the tool call that waits for a decision (what an approver approves). */
  readonly pendingArguments?: Readonly<Record<string, unknown>>;
  /**
   * Runs since `agent-run-versioned-facts-v1`: each fact name's current version (withdrawn ones
   * too) and the invocation (observation) that established it, null for a withdrawal or a version
   * carried from an earlier generation. Verified facts are cited as `fact://<name>@v<version>`.
   */
  readonly factVersions?: Readonly<
    Record<string, { readonly version: number; readonly observationSeq: number | null }>
  >;
  /** The tenant and user the run was started for (its input), when it names them. */
  readonly tenantId?: string;
  readonly userId?: string;
  /** Signed runs: the first execution run id, which decision tokens are bound to. */
  readonly firstExecutionRunId?: string;
  /** The last signals refused (malformed, stale, forged, repeated), newest last. */
  readonly signalRejections: RunSignalRejection[];
  /** Policy obligations in force (`mask.phone`...), applied by the output guardrail. */
  readonly obligations: string[];
  /** Compositions retried after the output guardrail blocked them. */
  readonly outputRetries: number;
  /** A routed run's route and plan as of its last checkpoint (routed profiles only). */
  readonly routing?: RunRouting;
}

/** What a run has used of its budgets, whole-run (the state's per-call digests are not shown). */
export interface RunBudgetUsage {
  steps: number;
  modelCalls: number;
  toolCalls: number;
  perTool: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  stepsWithoutProgress: number;
}

/** A run's budgets (its input's `budget` over the defaults); each ends the run in `budget_exhausted`. */
export interface RunBudgetLimits {
  maxSteps: number;
  maxModelCalls: number;
  maxToolCalls: number;
  /** Per tool name: maximum dispatched invocations. */
  perToolLimit: Record<string, number>;
  maxInputTokens: number;
  maxOutputTokens: number;
  maxCostUsd: number;
  /** Wall-clock deadline from the run's start. */
  deadlineSeconds: number;
  /** How many times the same tool may be called with the same arguments before the run stops. */
  maxDuplicateCalls: number;
  /** How many consecutive steps may pass without a new fact, artifact or successful call. */
  maxStepsWithoutProgress: number;
  /** A warning event is emitted when a budget crosses this fraction. */
  warnAtFraction: number;
}

/** One tool invocation as the view shows it (its outputs live in the evidence store). */
export interface RunViewInvocation {
  seq: number;
  tool: string;
  version: string;
  effect: string;
  status: string;
  externalId?: string;
  /** Who settled an unknown outcome: `reconciler` (the tool's check) or `operator:<actor>`. */
  resolvedBy?: string;
}

/** One artifact as the view shows it. */
export interface RunViewArtifact {
  id: string;
  type: string;
  provenance: string;
  externalId?: string;
  verification?: unknown;
}

/** Verified facts the policy may use (e.g. `order.owner_verified`). */
export type RunFacts = Record<string, string | number | boolean>;

/** A write that took effect before a budget ended its run (`RunTerminalReason.delivered`). */
export interface RunDeliveredWrite {
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly externalId?: string;
  /** Who settled it when its outcome was unknown: `evidence_store`, `reconciler`, `operator:<actor>`. */
  readonly resolvedBy?: string;
}

/**
 * Why a run ended, with a stable code. A `budget_exhausted` run whose writes took effect (runs since
 * `agent-run-delivered-outcome-v1`) also says what it delivered: `outcome: 'delivered'` and the
 * applied writes; its output is then the customer's answer (docs/runner.md, "Delivered outcome").
 */
export interface RunTerminalReason {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly outcome?: 'delivered';
  readonly delivered?: readonly RunDeliveredWrite[];
}

/** A verified decision, as the run records it and `harness show` names it. */
export interface RunDecisionRecord {
  readonly actionId: string;
  /** One of the decisions a signed decision token can carry. */
  readonly decision:
    'approve' | 'reject' | 'confirm' | 'reconcile' | 'input' | 'cancel' | 'request_more_info';
  readonly principal: string;
  readonly keyId: string;
  readonly at: string;
  /** The delegate (the run service) that signed on the principal's behalf. */
  readonly via?: string;
}

/** A signal the run refused (malformed, stale, forged or repeated). */
export interface RunSignalRejection {
  signal: string;
  code: string;
  message: string;
  at: string;
}

/** One step of a routed run's plan and where it stands (`running`: in progress, or next). */
export interface RunPlanStep {
  readonly stepId: string;
  readonly capability: string;
  readonly objective: string;
  readonly status: 'pending' | 'running' | 'succeeded' | 'failed';
}

/** A routed run's route and plan (docs/routing-and-planning.md), as of its last checkpoint. */
export interface RunRouting {
  /** `route`, `session`, `plan`, `step`, `fallback` or `answer`. */
  readonly phase: string;
  /** The capability domain the run is in, or null before the first route decision. */
  readonly domain: string | null;
  readonly routeChanges: number;
  readonly replans: number;
  /** The admitted plan in its execution order, or null (no planner, or no plan admitted yet). */
  readonly plan: { readonly planId: string; readonly steps: readonly RunPlanStep[] } | null;
}
