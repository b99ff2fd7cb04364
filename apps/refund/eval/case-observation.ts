import type { RunStatus } from '../../../src/index.js';

/** A refund row of the case's business store. */
export interface BusinessRefund {
  readonly id: string;
  readonly orderId: string;
  readonly amountCents: number;
  readonly idempotencyKey: string;
  readonly status: string;
}

/** One dispatched tool call: what the state query and the evidence store's intent say. */
export interface ObservedInvocation {
  readonly seq: number;
  readonly tool: string;
  readonly effect: string;
  readonly status: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly resolvedBy?: string;
}

/** One stored event, reduced to what the checks read. */
export interface ObservedEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * Everything the evaluation observed of one case's run: the `state` query at the end, the evidence
 * store's invocations and events, and the business store's refunds. Plain data, so the checks and the
 * metrics are pure functions of it.
 */
export interface CaseObservation {
  readonly caseId: string;
  readonly workflowId: string;
  /** The run's status when the driver stopped, or `error` when the run could not be driven. */
  readonly status: RunStatus | 'error';
  readonly waitingReason: string | null;
  readonly currentNode: string | null;
  readonly completedSteps: readonly string[];
  readonly facts: Readonly<Record<string, unknown>>;
  readonly artifacts: readonly {
    id: string;
    type: string;
    provenance: string;
    externalId?: string;
    verification?: unknown;
  }[];
  readonly invocations: readonly ObservedInvocation[];
  readonly events: readonly ObservedEvent[];
  readonly budget: {
    steps: number;
    modelCalls: number;
    toolCalls: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  };
  readonly refunds: readonly BusinessRefund[];
  /** Owner of the seeded order. */
  readonly orderOwner: string;
  readonly output: unknown;
  readonly terminalReason: { code: string; message: string } | null;
  readonly durationMs: number;
  /** The run's events in the evidence store are gap-free and reach its current status (trace completeness). */
  readonly evidenceComplete: boolean;
  /** Why the driver could not finish the case (status `error`). */
  readonly error?: string;
}
