import type { Artifact } from '../../contract/artifact.js';
import type { GuardrailFindingRecord } from '../guardrails/finding-record.js';
import type { ToolEffect } from '../../contract/tool.js';
import type { BudgetLimits, BudgetUsage } from './budget.js';
import type { HumanRequest, PendingAction } from '../../contract/pending-action.js';
import type { RunStatus } from '../../contract/statuses.js';
import type { RunVersions } from '../../contract/agent-event.js';
import type { RunDeliveredWrite } from '../../contract/run-view.js';

export type { RunVersions } from '../../contract/agent-event.js';

export type InvocationStatus =
  | 'pending'
  | 'succeeded'
  | 'rejected'
  | 'denied'
  | 'failed_retryable'
  | 'failed_terminal'
  | 'outcome_unknown'
  | 'interrupted'
  | 'not_applied';

/** One tool invocation as the run's state records it (bounded; outputs live in the evidence store). */
export interface InvocationSummary {
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly effect: ToolEffect;
  readonly argsDigest: string;
  status: InvocationStatus;
  externalId?: string;
  artifactIds: string[];
  errorCode?: string;
  /** Who settled an unknown outcome: `reconciler` (the tool's check) or `operator:<actor>`. */
  resolvedBy?: string;
}

/** Why a run ended, with a stable code (and, for a budget end after applied writes, what it delivered). */
export interface TerminalReason {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly outcome?: 'delivered';
  readonly delivered?: readonly RunDeliveredWrite[];
}

/** One recorded state transition (seed 004 StateTransition). */
export interface StateTransitionRecord {
  readonly fromVersion: number;
  readonly fromStatus: RunStatus;
  readonly toStatus: RunStatus;
  readonly node: string | null;
  readonly patch: Readonly<Record<string, unknown>>;
  readonly occurredAt: string;
}

/** The run state schema version this build writes (src/workflows/migration/run-state-v2.ts). */
export const RUN_STATE_SCHEMA_VERSION = 2;

/**
 * The run's durable state: what a restart needs to resume (seed 004: pinned versions, typed state,
 * completed steps, pending external operation, human token, budget usage, last durable event seq).
 * Carried across continue-as-new; versioned by `schemaVersion` (version 2; older carried states
 * migrate through src/workflows/migration, a newer one is refused).
 */
export interface RunState {
  readonly schemaVersion: typeof RUN_STATE_SCHEMA_VERSION;
  readonly runId: string;
  readonly threadId: string;
  status: RunStatus;
  waitingReason: string | null;
  currentNode: string | null;
  stateVersion: number;
  readonly versions: RunVersions;
  readonly limits: BudgetLimits;
  budget: BudgetUsage;
  invocations: InvocationSummary[];
  artifacts: Artifact[];
  pendingAction: PendingAction | null;
  /** Human request on display while waiting (H2). */
  humanRequest: HumanRequest | null;
  /** Next invocation sequence number; never reused. */
  nextSeq: number;
  /** Next model call number. */
  nextModelCall: number;
  /** Next event sequence number: gap-free across the run. */
  nextEventSeq: number;
  completedSteps: string[];
  /** Verified facts the policy may use (e.g. `order.owner_verified`). */
  facts: Record<string, string | number | boolean>;
  /** The profile's typed state (graph profiles). */
  profileState: Record<string, unknown>;
  output: unknown;
  terminalReason: TerminalReason | null;
  /** The most recent transitions (bounded); the full list is in the events. */
  recentTransitions: StateTransitionRecord[];
  /** The last (at most 10) signals refused as malformed, stale, forged or repeated. */
  signalRejections?: { signal: string; code: string; message: string; at: string }[];
  startedAt: string;
  /**
   * Policy obligations in force for the run (`mask.phone`, `limit.refund_amount=5000`), distinct, in
   * first-seen order, bounded; the output guardrail applies them. Survives continue-as-new.
   */
  obligations: string[];
  /** The most recent guardrail findings (bounded); every check is also an event. */
  guardrailFindings: GuardrailFindingRecord[];
  /** Compositions retried after the output guardrail blocked them (profile `blockedOutput`). */
  outputRetries: number;
}
