import type { ChainHeadReceipt } from './chain-head.js';
/**
 * The activities the workflow calls, as the workflow sees them: names, inputs and results. The worker
 * implements them (src/activities: `createRunActivities`, `createToolActivities`,
 * `createModelActivities` return these interfaces); the workflow reaches them only through
 * `proxyActivities` / `proxyLocalActivities` with these types, so it never imports worker code.
 */
import type { ModelRoutePlan } from './model-routes.js';
import type { BundlePin, BundleSlots, ResolvedBundles } from './bundles.js';
import type { MemoryEntry, MemoryScope } from './memory.js';
import type { PrincipalRegistry } from './principals.js';
import type { RunConfigPin } from './run-config.js';
import type { ToolDefinition } from './tool.js';
import type { CompactModelInput, CompactToolInput } from './compact-step-input.js';
import type { DefaultsOff } from './compact-step-input-v3.js';
import type { PackedEventsV3 } from './packed-events-v3.js';
import type { PackedEvents, WithPackedEvents, WithPackedEventsByRef } from './packed-events.js';
import type {
  ModelCallInput as RunnerModelCallInput,
  ModelDecision,
  OperatorResolutionInput as RunnerOperatorResolutionInput,
  OperatorResolutionOutcome,
  ToolCallInput as RunnerToolCallInput,
  ToolCallResult,
  WriteResolution,
} from './step-io.js';

/**
 * The model-call activity's names: the first release's, the second baseline's (run-patches.ts) and
 * the third step format's (`agent-run-step-format-v3`).
 */
export const MODEL_CALL_ACTIVITY_TYPES: readonly string[] = ['callModel', 'callModelV2', 'callModelV3'];

/** The tool-call activity's names, as {@link MODEL_CALL_ACTIVITY_TYPES}. */
export const TOOL_CALL_ACTIVITY_TYPES: readonly string[] = ['runTool', 'runToolV2', 'runToolV3'];

/** The tool activity's input: the runner's call with its outbox events packed. */
export type ToolCallActivityInput = WithPackedEvents<RunnerToolCallInput>;

/** `runToolV2`'s input once completed (compact-step-input.ts): its events by header reference. */
export type ToolCallActivityInputV2 = WithPackedEventsByRef<RunnerToolCallInput>;

/** `runToolV3`'s input before its defaults are completed: its events in the third format. */
export type ToolCallActivityInputV3 = Omit<RunnerToolCallInput, 'events'> & {
  readonly events: PackedEventsV3;
};

/** What `runToolV3` receives (compact-step-input.ts, compact-step-input-v3.ts). */
export type CompactToolInputV3 = CompactToolInput<ToolCallActivityInputV3> & DefaultsOff;

/** What the tool activity's implementation reads: either form (only `runToolV2` gets the second). */
export type AnyToolCallActivityInput = ToolCallActivityInput | ToolCallActivityInputV2;

/** The operator-resolution activity's input: the decision, with the call's outbox events packed. */
export type OperatorResolutionActivityInput = Omit<RunnerOperatorResolutionInput, 'call'> & {
  readonly call: ToolCallActivityInput;
};

/** The model activity's input: the runner's request with its outbox events packed. */
export type ModelCallActivityInput = WithPackedEvents<RunnerModelCallInput>;

/** `callModelV2`'s input once completed: its events by header reference. */
export type ModelCallActivityInputV2 = WithPackedEventsByRef<RunnerModelCallInput>;

/** `callModelV3`'s input before its defaults are completed: its events in the third format. */
export type ModelCallActivityInputV3 = Omit<RunnerModelCallInput, 'events'> & {
  readonly events: PackedEventsV3;
};

/** What `callModelV3` receives (compact-step-input.ts, compact-step-input-v3.ts). */
export type CompactModelInputV3 = CompactModelInput<ModelCallActivityInputV3> & DefaultsOff;

/** What the model activity's implementation reads: either form (only `callModelV2` gets the second). */
export type AnyModelCallActivityInput = ModelCallActivityInput | ModelCallActivityInputV2;

export interface ToolSnapshotRequest {
  /**
   * Runs started with a whole-registry pin (older clients): this worker's whole registry must have
   * exactly this digest.
   */
  readonly expectedDigest?: string;
  /**
   * Per-tool pin: the digest of the profile's tool definitions the run pinned at its first start.
   * Absent at the first start (the run pins what this worker serves).
   */
  readonly toolsDigest?: string;
  /** The profile's tools (`name` or `name@version`). */
  readonly names: readonly string[];
  /** Runs that check signed decisions: the principal registry too (a cancellation may come before any wait). */
  readonly withPrincipals?: boolean;
  /** At the first start: the model route the starter named (the worker pins its routes for it). */
  readonly modelRoute?: string;
  /** At the first start: the run's id, profile and policy (the worker assigns its rollout arm and bundles). */
  readonly bundleSlots?: BundleSlots;
  /** After continue-as-new: the bundles the run pinned (the worker resolves exactly those versions). */
  readonly bundlePin?: BundlePin;
  /**
   * At the first start of a run with `agent-run-config-pin-v1`: return the run's config pin
   * ({@link ToolSnapshot.runConfig}) for the route and bundles it pins.
   */
  readonly runConfig?: true;
  /**
   * After continue-as-new: the config pin the run carried. A worker with another configuration under
   * it refuses (`worker.config_changed`, a workflow task failure).
   */
  readonly configPin?: RunConfigPin;
}

/** What a run pins from the worker that serves its start. */
export interface ToolSnapshot {
  readonly definitions: readonly ToolDefinition[];
  /** The pinned tool digest: of the whole registry (with `expectedDigest`), else of the profile's tools. */
  readonly digest: string;
  readonly defaultModelRoute?: string;
  /**
   * The worker's config digest: its whole configuration (every tool, route, the routes file, the
   * bundles), what runs without a config pin record as `versions.configDigest`; never compared.
   */
  readonly configDigest?: string;
  /**
   * The model routes the run pins (per purpose, with fallbacks), when the worker has a routes file
   * that serves the run's route: the starter's, else the file's default. Absent for other routes.
   */
  readonly modelRoutes?: ModelRoutePlan;
  /**
   * The run's control-plane bundles (docs/control-plane.md): its pin and the content it names. At the
   * first start, when the worker has a rollout config; after continue-as-new, the carried pin resolved.
   */
  readonly bundles?: ResolvedBundles;
  /** With `withPrincipals`: the worker's principal registry. */
  readonly principals?: PrincipalsSnapshot;
  /**
   * With `runConfig`: the run's config pin: its scope (the profile's tools, the route and bundles the
   * run pins) and this worker's run config digest under it. Not {@link configDigest} (the worker's
   * whole configuration).
   */
  readonly runConfig?: RunConfigPin;
}

/** What a run asks of the worker's principal registry: the digest it already holds, if any. */
export interface PrincipalsRequest {
  readonly knownDigest?: string;
}

/** The worker's principal registry: its digest, and the registry itself unless the run has it already. */
export interface PrincipalsSnapshot {
  readonly digest: string;
  readonly registry?: PrincipalRegistry;
}

/** Activities that serve the run itself. */
export interface RunActivities {
  loadToolSnapshot(req: ToolSnapshotRequest): Promise<ToolSnapshot>;
  /** The principal registry decisions are checked against (a local activity at each wait). */
  loadPrincipals(req: PrincipalsRequest): Promise<PrincipalsSnapshot>;
  recordEvents(events: PackedEvents): Promise<ChainHeadReceipt | undefined>;
}

/** Tool invocations: intent, effect, result; settling lost writes. */
export interface ToolActivities {
  runTool(input: ToolCallActivityInput): Promise<ToolCallResult>;
  /**
   * `runTool` under the name runs on the second baseline schedule (run-patches.ts), with the compact
   * input (compact-step-input.ts) and batches that may name the run header by reference, so a worker
   * of a release without this name never gets either.
   */
  runToolV2(input: CompactToolInput<ToolCallActivityInputV2>): Promise<ToolCallResult>;
  /**
   * `runTool` under the name runs with the third step format call (`agent-run-step-format-v3`): the
   * input and batch with their defaults left out (compact-step-input-v3.ts, packed-events-v3.ts),
   * restored to exactly what `runToolV2` stores.
   */
  runToolV3(input: CompactToolInputV3): Promise<ToolCallResult>;
  resolveLostInvocation(input: ToolCallActivityInput): Promise<WriteResolution>;
  recordOperatorResolution(input: OperatorResolutionActivityInput): Promise<OperatorResolutionOutcome>;
}

/** Thread memory in the evidence store (docs/context.md, "Memory"). */
export interface MemoryActivities {
  /** The scope's live memory at `now` (the newest entry per name, at most `limit`). */
  recallMemory(req: {
    readonly scope: MemoryScope;
    readonly now: string;
    readonly limit: number;
  }): Promise<MemoryEntry[]>;
  /**
   * Store one entry the run has checked (verified fact, policy allowed). Idempotent by `entryId`.
   * @throws ApplicationFailure (non-retryable) `memory.invalid_entry` for an entry the store refuses.
   */
  writeMemory(entry: MemoryEntry): Promise<void>;
}

/** Model calls through the gateway. */
export interface ModelActivities {
  callModel(input: ModelCallActivityInput): Promise<ModelDecision>;
  /** `callModel` under the name runs on the second baseline schedule, with the compact input (see `runToolV2`). */
  callModelV2(input: CompactModelInput<ModelCallActivityInputV2>): Promise<ModelDecision>;
  /** `callModel` under the name runs with the third step format call (see `runToolV3`). */
  callModelV3(input: CompactModelInputV3): Promise<ModelDecision>;
}
