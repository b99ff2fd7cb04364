import { ModelBlockedError, ModelError } from './errors.js';
import { validateStructuredOutput } from './output-validation.js';
import { costUsd } from './pricing.js';
import type { ModelEvent } from './events.js';
import type { ModelPrice } from './pricing.js';
import type { ToolNameCodec } from './tool-names.js';
import type { ModelOutput, ModelRequest, ModelStopReason, ModelToolCall } from './types.js';

interface PendingToolCall {
  readonly index: number;
  id: string;
  name?: string;
  version?: string;
  raw: string;
  /** Arguments of the synthetic structured-output tool: they are the answer text, not a tool call. */
  readonly structured: boolean;
}

export interface StreamAssemblerInit {
  readonly req: ModelRequest;
  readonly provider: string;
  readonly onEvent: (e: ModelEvent) => void;
  readonly price: ModelPrice;
  readonly codec: ToolNameCodec;
  /** Model name to report when the provider reports none. */
  readonly configuredModel: string;
  /** Provider name of a synthetic tool whose arguments are the structured answer (Anthropic). */
  readonly structuredToolName?: string;
}

/**
 * Turns provider stream pieces into normalized events and one {@link ModelOutput}. Provider adapters
 * feed it text, tool-call fragments (keyed by the provider's index), usage reports and the stop
 * reason; it assembles fragmented arguments, decodes tool names against the offered tools, counts
 * usage once (later reports replace earlier ones, they are never added) and emits exactly one
 * terminal outcome. Any failure goes through {@link fail}, which emits `model.failed` and throws.
 */
export class StreamAssembler {
  private text = '';
  private readonly calls = new Map<string | number, PendingToolCall>();
  private inputTokens?: number;
  private outputTokens?: number;
  private providerModel?: string;
  private stopReason?: ModelStopReason;
  private blocked?: { reason: 'content_filter' | 'refusal'; message: string };
  private terminal = false;

  constructor(private readonly init: StreamAssemblerInit) {}

  private emit(e: ModelEvent): void {
    this.init.onEvent(e);
  }

  started(): void {
    const { req, provider } = this.init;
    this.emit({
      type: 'model.started',
      callId: req.callId,
      purpose: req.purpose,
      model: req.model,
      provider,
    });
  }

  setProviderModel(model: string | undefined): void {
    if (model) this.providerModel = model;
  }

  addText(delta: string): void {
    if (delta === '') return;
    this.text += delta;
    this.emit({ type: 'model.text.delta', callId: this.init.req.callId, delta });
  }

  /**
   * One fragment of a tool call. `key` is the provider's index of the call; `id` and `name` arrive on
   * the first fragment. Throws `model.unknown_tool` at once for a name that was not offered.
   */
  addToolCallFragment(key: string | number, frag: { id?: string; name?: string; arguments?: string }): void {
    let call = this.calls.get(key);
    if (call === undefined) {
      if (!frag.name) {
        throw new ModelError('model.unknown_event', 'a tool call started without a name', {
          details: { key },
        });
      }
      const structured = frag.name === this.init.structuredToolName;
      const spec = structured ? undefined : this.init.codec.decode(frag.name);
      const visible = [...this.calls.values()].filter((c) => !c.structured).length;
      call = { index: visible, id: frag.id ?? `call_${visible}`, raw: '', structured };
      if (spec) {
        call.name = spec.name;
        call.version = spec.version;
      }
      this.calls.set(key, call);
      if (!structured) {
        this.emit({
          type: 'model.tool_call.delta',
          callId: this.init.req.callId,
          index: call.index,
          id: call.id,
          name: call.name,
          version: call.version,
          argumentsDelta: frag.arguments ?? '',
        });
        call.raw += frag.arguments ?? '';
        return;
      }
    }
    const delta = frag.arguments ?? '';
    if (delta === '') return;
    if (call.structured) {
      this.addText(delta);
      return;
    }
    call.raw += delta;
    this.emit({
      type: 'model.tool_call.delta',
      callId: this.init.req.callId,
      index: call.index,
      argumentsDelta: delta,
    });
  }

  /** Records a usage report. Reports are cumulative snapshots: the last value of each field wins. */
  setUsage(usage: { inputTokens?: number | null; outputTokens?: number | null }): void {
    if (typeof usage.inputTokens === 'number') this.inputTokens = usage.inputTokens;
    if (typeof usage.outputTokens === 'number') this.outputTokens = usage.outputTokens;
  }

  setStopReason(reason: ModelStopReason): void {
    this.stopReason = reason;
  }

  setBlocked(reason: 'content_filter' | 'refusal', message: string): void {
    this.blocked = { reason, message };
  }

  /**
   * Finishes a stream that ended normally. Throws `model.connection_lost` when the provider never
   * sent a stop reason (truncated stream), `model.usage_missing` without usage, `ModelBlockedError`
   * when blocked (after counting the billed usage), and tool/output validation errors.
   */
  complete(): ModelOutput {
    const { req } = this.init;
    if (this.stopReason === undefined && this.blocked === undefined) {
      throw new ModelError('model.connection_lost', 'the model stream ended before the provider finished', {
        details: { provider: this.init.provider },
      });
    }
    if (this.inputTokens === undefined || this.outputTokens === undefined) {
      throw new ModelError(
        'model.usage_missing',
        `${this.init.provider} finished without reporting token usage`,
        {
          details: { provider: this.init.provider },
        },
      );
    }
    const usage = { inputTokens: this.inputTokens, outputTokens: this.outputTokens };
    const cost = costUsd(this.init.price, usage);
    const providerModel = this.providerModel ?? this.init.configuredModel;
    const usageEvent: ModelEvent = {
      type: 'model.usage.completed',
      callId: req.callId,
      usage,
      costUsd: cost,
      providerModel,
    };
    if (this.blocked !== undefined) {
      this.emit(usageEvent);
      this.terminal = true;
      this.emit({ type: 'model.blocked', callId: req.callId, ...this.blocked });
      throw new ModelBlockedError(this.blocked.reason, this.blocked.message, { usage, costUsd: cost });
    }
    const toolCalls = this.finishToolCalls();
    let stopReason = this.stopReason ?? 'other';
    const structuredAnswered = [...this.calls.values()].some((c) => c.structured);
    if (structuredAnswered && toolCalls.length === 0 && stopReason === 'tool_calls') stopReason = 'end_turn';
    if (req.outputSchema && toolCalls.length === 0 && stopReason === 'end_turn') {
      validateStructuredOutput(this.text, req.outputSchema);
    }
    const output: ModelOutput = {
      text: this.text,
      toolCalls,
      stopReason,
      usage,
      costUsd: cost,
      providerModel,
    };
    this.emit({ type: 'model.output.completed', callId: req.callId, stopReason, text: this.text, toolCalls });
    this.terminal = true;
    this.emit(usageEvent);
    return output;
  }

  private finishToolCalls(): ModelToolCall[] {
    const out: ModelToolCall[] = [];
    for (const call of this.calls.values()) {
      if (call.structured || call.name === undefined || call.version === undefined) continue;
      const raw = call.raw.trim() === '' ? '{}' : call.raw;
      let args: unknown;
      try {
        args = JSON.parse(raw);
      } catch {
        throw new ModelError('model.invalid_tool_arguments', `arguments of ${call.name} are not valid JSON`, {
          details: { tool: call.name, preview: call.raw.slice(0, 200) },
        });
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw new ModelError(
          'model.invalid_tool_arguments',
          `arguments of ${call.name} are not a JSON object`,
          {
            details: { tool: call.name },
          },
        );
      }
      out.push({
        id: call.id,
        name: call.name,
        version: call.version,
        args: args as Record<string, unknown>,
        rawArguments: call.raw,
      });
    }
    return out;
  }

  /**
   * Ends the call with a failure: emits `model.failed` (unless a terminal event was already emitted)
   * and throws `err` as a {@link ModelError}. A blocked outcome already emitted `model.blocked`.
   */
  fail(err: ModelError): never {
    if (!this.terminal) {
      this.terminal = true;
      this.emit({
        type: 'model.failed',
        callId: this.init.req.callId,
        code: err.code,
        retryable: err.retryable,
        message: err.message,
      });
    }
    throw err;
  }
}
