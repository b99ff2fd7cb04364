import type { ThreadMemoryPort } from './thread-memory.js';
import type { PinnedModelRoute } from '../../contract/model-routes.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { AgentEvent } from '../../contract/agent-event.js';
import type {
  ModelCallInput,
  ModelDecision,
  ToolCallInput,
  ToolActivityOutcome,
  WriteResolution,
  OperatorResolutionRecorder,
} from '../../contract/step-io.js';
import type { RunState } from './run-state.js';

export type {
  ModelMessageInput,
  ModelPurpose,
  ModelCallInput,
  ToolProposal,
  ModelDecision,
  ToolOutputFinding,
  InvalidToolCall,
  InvalidToolCallCode,
  ToolCallInput,
  ToolCallResult,
  ToolActivityOutcome,
  WriteResolution,
  OperatorResolutionInput,
  OperatorResolutionOutcome,
  OperatorResolutionRecorder,
} from '../../contract/step-io.js';

/**
 * Everything the runner needs from its host. The workflow implements it with Temporal APIs
 * (activities, timers, conditions); unit tests implement it in memory.
 */
export interface RunnerPorts {
  /** Current time from the workflow clock (ISO). */
  now(): string;
  /**
   * One model call on one route. `route`: what the run pinned of that route version (a Temporal host
   * takes its attempts and timeouts from it); absent for runs without pinned routes. Rejects with an
   * error carrying the stable `code` of the failure and, when the failed attempt was billed (a
   * refusal), `billed` (`BilledUsage`, model-routing.ts).
   */
  callModel(input: ModelCallInput, route?: PinnedModelRoute): Promise<ModelDecision>;
  /**
   * One attempt of a tool call. `fastMs`: a fast read (docs/runner.md, "Fast path"): the host may run it
   * as a local activity bounded by that many milliseconds, falling back to the regular activity when
   * that attempt fails for any reason other than the tool's business failure.
   */
  callTool(input: ToolCallInput, options: { summary: string; fastMs?: number }): Promise<ToolActivityOutcome>;
  resolveLostInvocation(input: ToolCallInput): Promise<WriteResolution>;
  /**
   * How this run records an operator's reconciliation in the evidence store, or undefined when it
   * does not (a run whose history predates the recording, a host without a store): the runner then
   * keeps the decision in its own state and events only. Asked once, before the run waits for the
   * decision. Optional for in-memory hosts.
   */
  operatorResolutionRecorder?(): OperatorResolutionRecorder | undefined;
  /**
   * Store the outbox now. `last`: nothing follows in this workflow execution (the run ended, or it
   * continues as new), so a Temporal host may use a local activity; a flush before a wait may not
   * (a decision asked after a local activity is fragile on replay).
   */
  flushEvents(events: readonly AgentEvent[], options?: { readonly last?: boolean }): Promise<void>;
  /**
   * Thread memory (docs/context.md, "Memory"), or undefined when the host keeps none. Asked only when
   * a profile recalls or remembers. Optional: in-memory hosts may leave it out.
   */
  memory?(): ThreadMemoryPort | undefined;
  /** Wait until `ready()` is true or `timeoutMs` passes; resolves false on timeout. */
  waitUntil(ready: () => boolean, timeoutMs?: number): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /** Called after every state change: search attributes, current details. */
  publish(state: RunState): void;
  /** The pinned tool definitions (model-visible). */
  readonly tools: readonly ToolDefinition[];
  /**
   * Should the run continue as new at this checkpoint (history long enough)? Optional: hosts without
   * history limits (unit tests) leave it out and checkpoints never continue as new.
   */
  shouldContinueAsNew?(): boolean;
  /**
   * Asked while the run waits for a person, after every batch of signals: the history's size in
   * bytes when it has reached the bound for a waiting run (the wait then moves to a new history or
   * ends, see `WAIT_HISTORY_BOUND_BYTES`), else undefined. A Temporal host reads the size of the
   * history and, only once it is over the bound, asks `patched()`, so older histories replay
   * unchanged. Must be cheap and deterministic. Optional: hosts without history limits leave it out.
   */
  historyOverWaitBound?(): number | undefined;
}
