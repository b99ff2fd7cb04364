import { z } from 'zod';
import type { ModelEvent } from './events.js';
import type { InvalidToolCall } from '../../contract/step-io.js';

/**
 * Why the harness calls a model. Part of the request; also selects scripted responses. `summarize`
 * is the context builder's call that summarises an older tool observation (docs/context.md).
 */
export const ModelPurposeSchema = z.enum([
  'route',
  'extract',
  'plan',
  'decide',
  'verify',
  'respond',
  'summarize',
]);
export type ModelPurpose = z.infer<typeof ModelPurposeSchema>;

/** A tool call the model proposed, as it appears in an assistant message sent back to the model. */
export const ModelToolCallRefSchema = z.object({
  id: z.string().min(1),
  /** Harness tool name, e.g. `order.read`. */
  name: z.string().min(1),
  version: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});
export type ModelToolCallRef = z.infer<typeof ModelToolCallRefSchema>;

/** One message of a model conversation. Tool results go back as `tool` messages naming the call. */
export const ModelMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(ModelToolCallRefSchema).optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string().min(1), content: z.string() }),
]);
export type ModelMessage = z.infer<typeof ModelMessageSchema>;

/** The model-visible half of a registered tool, pinned to a version. */
export const ModelToolSpecSchema = z.object({
  /** Harness name, lowercase and dotted, e.g. `order.read`. */
  name: z.string().min(1),
  /** `vN`, e.g. `v1`. */
  version: z.string().min(1),
  description: z.string(),
  /** JSON Schema of the arguments (root `type: "object"`). */
  parameters: z.record(z.string(), z.unknown()),
});
export type ModelToolSpec = z.infer<typeof ModelToolSpecSchema>;

/** One model call. Never carries credentials, base URLs or provider model names: those live in the worker. */
export const ModelRequestSchema = z.object({
  /** Stable id of this call (for events, idempotent storage of the output). */
  callId: z.string().min(1),
  purpose: ModelPurposeSchema,
  /** Model route name pinned by the run, e.g. `support-default@9`. Selects the price entry. */
  model: z.string().min(1),
  messages: z.array(ModelMessageSchema).min(1),
  tools: z.array(ModelToolSpecSchema).optional(),
  /**
   * JSON Schema the final text must satisfy (a JSON document): sent to the model as structured output
   * and checked when the answer ends the turn (`model.output_invalid`, non-retryable, when it does not
   * match), unless `outputCheck` is `caller`.
   */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /**
   * `caller`: the `outputSchema` is sent to the model but the answer is not checked against it: the
   * text is returned as the model wrote it and the caller checks it. Absent: checked.
   */
  outputCheck: z.literal('caller').optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /**
   * `report`: a tool call with a name not offered or arguments that are not a JSON object is returned
   * in {@link ModelOutput.invalidToolCalls}; absent: it fails the call (`model.unknown_tool`,
   * `model.invalid_tool_arguments`).
   */
  invalidToolCalls: z.literal('report').optional(),
});
export type ModelRequest = z.infer<typeof ModelRequestSchema>;

/** Normalized reason the model stopped. */
export type ModelStopReason =
  'end_turn' | 'tool_calls' | 'max_tokens' | 'content_filter' | 'stop_sequence' | 'other';

export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A complete, decoded tool call proposed by the model. A proposal only: the harness still checks it. */
export interface ModelToolCall {
  readonly id: string;
  /** Harness name (decoded from the provider-safe name). */
  readonly name: string;
  readonly version: string;
  readonly args: Record<string, unknown>;
  /** The arguments exactly as the model produced them. */
  readonly rawArguments: string;
}

/** The result of one completed model call. */
export interface ModelOutput {
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  readonly stopReason: ModelStopReason;
  /** Counted once, from the provider's final usage report. */
  readonly usage: ModelUsage;
  /** Computed once from `usage` and the price of the request's route. */
  readonly costUsd: number;
  /** The model name the provider reported (or the configured one when it reports none). */
  readonly providerModel: string;
  /** Calls that are not proposals, when the request asked for them (`invalidToolCalls: 'report'`) and there were any. */
  readonly invalidToolCalls?: readonly InvalidToolCall[];
}

export interface ModelStreamOptions {
  /** Aborting it aborts the HTTP stream; the call then rejects with `model.cancelled`. */
  readonly signal: AbortSignal;
  /** Receives normalized events in order. Must not throw. */
  readonly onEvent: (e: ModelEvent) => void;
}

/**
 * A model provider adapter. `stream` emits `model.started`, deltas, then exactly one terminal
 * outcome: `model.output.completed` + `model.usage.completed` (resolves), `model.blocked`
 * (rejects with `ModelBlockedError`), or `model.failed` (rejects with `ModelError`). It never
 * retries by itself: retries belong to the Temporal activity.
 */
export interface ModelProvider {
  readonly name: string;
  stream(req: ModelRequest, opts: ModelStreamOptions): Promise<ModelOutput>;
}
