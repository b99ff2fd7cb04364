import { z } from 'zod';
import type { Artifact } from './artifact.js';

/**
 * The trusted effect of a tool. Declared by the composition, never inferred or taken from a model.
 * Built on first use (see builtOnFirstUse).
 */
export const ToolEffectSchema = z.lazy(() => z.enum(['read', 'write']));
export type ToolEffect = z.infer<typeof ToolEffectSchema>;

/** A JSON Schema object as accepted by the registry (see docs/extending.md for the supported subset). */
export type JsonSchema = Record<string, unknown>;

/**
 * The model-visible half of a tool: what the model may see and call. The executor (the worker-side
 * binding) is registered beside it and is never visible to a model or an event.
 */
export interface ToolDefinition {
  /** Lowercase namespaced identifier with at least one dot, e.g. `report.generate`. */
  readonly name: string;
  /** `vN` with N >= 1. Runs pin the version they started with. */
  readonly version: string;
  readonly description: string;
  /** Closed JSON object schema: root `type: "object"`, `additionalProperties: false`. */
  readonly parameters: JsonSchema;
  readonly effect: ToolEffect;
}

/** One invocation of a tool as the runner dispatches it. */
export interface ToolCall {
  readonly runId: string;
  /** Invocation sequence number inside the run; unique per run, never reused. */
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Derived from run and seq; executors of write tools pass it to the external system. */
  readonly idempotencyKey: string;
}

/** Context handed to an executor. */
export interface ToolContext {
  /** Aborted when the activity is cancelled or the worker shuts down. */
  readonly signal: AbortSignal;
  /** Report liveness; long executors call it so a lost worker is detected by heartbeat timeout. */
  heartbeat(details?: unknown): void;
}

/** What an executor reports after running. Artifacts it returns are recorded as `observed`/`verified`. */
export interface ToolExecution {
  /** Bounded JSON output; large data belongs in an artifact reference. */
  readonly output: Readonly<Record<string, unknown>>;
  readonly artifacts?: readonly Artifact[];
  /** An identifier of the effect in the external system (a refund id, a commit sha). */
  readonly externalId?: string;
}

/** Outcome of a read-only check of the external system for a write whose outcome is unknown. */
export type ReconcileOutcome =
  | { readonly outcome: 'succeeded'; readonly execution: ToolExecution }
  | { readonly outcome: 'not_applied' }
  | { readonly outcome: 'unknown' };

/**
 * The worker-side binding of a tool. Lives only in worker composition: credentials and clients
 * belong here, never in definitions, workflow input, history or events.
 */
export interface ToolExecutor {
  /**
   * Perform the tool's effect. Throwing fails the invocation; for write tools the harness never
   * re-runs it automatically.
   */
  execute(ctx: ToolContext, call: ToolCall): Promise<ToolExecution>;
  /**
   * Optional, write tools only: look the effect up in the external system (by idempotency key)
   * without changing anything, to resolve an unknown outcome.
   */
  reconcile?(ctx: ToolContext, call: ToolCall): Promise<ReconcileOutcome>;
}
