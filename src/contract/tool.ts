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
  /**
   * Write tools only: `true` declares that the executor dedupes by {@link ToolCall.idempotencyKey}:
   * running it again under a key it already applied changes nothing more (it returns that effect or a
   * business failure). Only such a write is attempted again automatically (same invocation, approval
   * and key) after an attempt whose outcome was lost is settled `not_applied` by the evidence store or
   * the reconciler. Without it that settlement asks a person (waiting reason `write_not_idempotent`),
   * who says try again (`not_applied`), give up (`failed`) or done outside (`succeeded`). An attempt
   * that failed before its executor ran (`tool.not_started`) is tried again for every write, and a
   * person's `not_applied` is their word to try again (docs/durability.md, "Effectively once").
   * Part of what a run pins (the registry digest); absent and `false` are the same and digest alike.
   */
  readonly idempotentByKey?: boolean;
  /**
   * Read tools only: a fast read. A run with the fast path (start feature `agent-run-fast-path-v1`)
   * runs a call of it that its policy allowed without asking anyone as a local activity, in the
   * workflow task that decided it, bounded by `timeoutMs` (1 to {@link MAX_FAST_TIMEOUT_MS}). A fast
   * attempt that fails for any other reason than the tool's own business failure (its timeout, a
   * thrown error) falls back to the regular read activity, with its retries (docs/runner.md, "Fast
   * path"). Part of what a run pins (the registry digest).
   */
  readonly fast?: FastRead;
}

/** The most a fast read may take before it falls back to the regular activity, in milliseconds. */
export const MAX_FAST_TIMEOUT_MS = 10_000;

/** How a read tool runs on the fast path ({@link ToolDefinition.fast}). */
export interface FastRead {
  /** Start-to-close timeout of the local activity, an integer from 1 to {@link MAX_FAST_TIMEOUT_MS}. */
  readonly timeoutMs: number;
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
   * Perform the tool's effect. A read is retried by its activity's retry policy. A write is never
   * re-run while its last attempt's outcome is unknown: a harness error (its business failure) ends
   * the invocation; anything else thrown after the intent was recorded, or a lost attempt, is settled
   * by the evidence store, then `reconcile`, then a person. It is run again, under the same
   * `idempotencyKey`, only once an attempt provably did not take effect: automatically when it failed
   * before the executor ran or, for a definition with `idempotentByKey: true`, when it was settled
   * `not_applied`; otherwise only on a person's `not_applied`.
   */
  execute(ctx: ToolContext, call: ToolCall): Promise<ToolExecution>;
  /**
   * Optional, write tools only: look the effect up in the external system (by idempotency key)
   * without changing anything, to resolve an unknown outcome. `not_applied` lets the run attempt the
   * write again automatically only when the definition is `idempotentByKey` (else a person is asked).
   */
  reconcile?(ctx: ToolContext, call: ToolCall): Promise<ReconcileOutcome>;
}
