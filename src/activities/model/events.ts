import type { ModelPurpose, ModelStopReason, ModelToolCall, ModelUsage } from './types.js';
import type { InvalidToolCall } from '../../contract/step-io.js';

/** The call began (emitted before any network I/O). */
export interface ModelStartedEvent {
  readonly type: 'model.started';
  readonly callId: string;
  readonly purpose: ModelPurpose;
  /** Route name from the request. */
  readonly model: string;
  readonly provider: string;
}

export interface ModelTextDeltaEvent {
  readonly type: 'model.text.delta';
  readonly callId: string;
  readonly delta: string;
}

/** A fragment of one tool call. `id`, `name` and `version` are present on the first fragment of a call. */
export interface ModelToolCallDeltaEvent {
  readonly type: 'model.tool_call.delta';
  readonly callId: string;
  /** Position of the tool call in this output (0-based, in order of first appearance). */
  readonly index: number;
  readonly id?: string;
  /** Decoded harness tool name. */
  readonly name?: string;
  readonly version?: string;
  /** Raw JSON fragment of the arguments; concatenating all fragments gives `rawArguments`. */
  readonly argumentsDelta: string;
}

export interface ModelOutputCompletedEvent {
  readonly type: 'model.output.completed';
  readonly callId: string;
  readonly stopReason: ModelStopReason;
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  /** Calls that are not proposals (only when the request asked for them, and there were any). */
  readonly invalidToolCalls?: readonly InvalidToolCall[];
}

/** Emitted exactly once per call that the provider completed (also for blocked calls, which are billed). */
export interface ModelUsageCompletedEvent {
  readonly type: 'model.usage.completed';
  readonly callId: string;
  readonly usage: ModelUsage;
  readonly costUsd: number;
  readonly providerModel: string;
}

/** The provider refused or filtered the output. Terminal. */
export interface ModelBlockedEvent {
  readonly type: 'model.blocked';
  readonly callId: string;
  readonly reason: 'content_filter' | 'refusal';
  readonly message: string;
}

/** The call failed. Terminal. `code` is a stable `model.*` code. */
export interface ModelFailedEvent {
  readonly type: 'model.failed';
  readonly callId: string;
  readonly code: string;
  readonly retryable: boolean;
  readonly message: string;
}

/** Normalized model event, the same for every provider. */
export type ModelEvent =
  | ModelStartedEvent
  | ModelTextDeltaEvent
  | ModelToolCallDeltaEvent
  | ModelOutputCompletedEvent
  | ModelUsageCompletedEvent
  | ModelBlockedEvent
  | ModelFailedEvent;
