import { ModelBlockedError, ModelError } from './errors.js';
import { validateStructuredOutput } from './output-validation.js';
import { costUsd } from './pricing.js';
import { MAX_INVALID_TOOL_CALLS, invalidToolCall, parseToolArguments } from './invalid-tool-calls.js';
import type { InvalidToolCall } from '../../contract/step-io.js';
import type { ModelEvent } from './events.js';
import type { ModelPrice } from './pricing.js';
import type { ToolNameCodec } from './tool-names.js';
import type { ModelOutput, ModelRequest, ModelStopReason, ModelToolCall } from './types.js';
import { versionedName } from '../../contract/versioned-name.js';

interface PendingToolCall {
  readonly index: number;
  id: string;
  name?: string;
  version?: string;
  raw: string;
  /** The name as the model sent it, when no offered tool has it (reported as `tool.not_offered`). */
  notOffered?: string;
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

  /** Does the request ask for invalid tool calls to be returned rather than fail the call? */
  private get reporting(): boolean {
    return this.init.req.invalidToolCalls === 'report';
  }

  /**
   * One fragment of a tool call. `key` is the provider's index of the call; `id` and `name` arrive on
   * the first fragment. Throws `model.unknown_tool` at once for a name that was not offered, unless
   * the request asked to report it (`invalidToolCalls: 'report'`): then the call is kept aside.
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
      const codec = this.init.codec;
      const spec = structured ? undefined : this.reporting ? codec.find(frag.name) : codec.decode(frag.name);
      const visible = [...this.calls.values()].filter((c) => !c.structured).length;
      call = { index: visible, id: frag.id ?? `call_${visible}`, raw: '', structured };
      if (spec) {
        call.name = spec.name;
        call.version = spec.version;
      } else if (!structured) call.notOffered = frag.name;
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
    const { toolCalls, invalid } = this.finishToolCalls();
    const called = toolCalls.length > 0 || invalid.length > 0;
    let stopReason = this.stopReason ?? 'other';
    const structuredAnswered = [...this.calls.values()].some((c) => c.structured);
    if (structuredAnswered && !called && stopReason === 'tool_calls') stopReason = 'end_turn';
    // `outputCheck: 'caller'`: the caller checks the answer itself (an invalid one is its to handle).
    if (req.outputSchema && req.outputCheck !== 'caller' && !called && stopReason === 'end_turn') {
      validateStructuredOutput(this.text, req.outputSchema);
    }
    const reported = invalid.length > 0 ? { invalidToolCalls: invalid } : {};
    const output: ModelOutput = {
      text: this.text,
      toolCalls,
      stopReason,
      usage,
      costUsd: cost,
      providerModel,
      ...reported,
    };
    this.emit({
      type: 'model.output.completed',
      callId: req.callId,
      stopReason,
      text: this.text,
      toolCalls,
      ...reported,
    });
    this.terminal = true;
    this.emit(usageEvent);
    return output;
  }

  /**
   * The assembled calls: proposals, and (when the request asked) the calls that are not (a name not
   * offered, arguments that are not a JSON object), at most {@link MAX_INVALID_TOOL_CALLS}.
   * @throws ModelError `model.invalid_tool_arguments` for bad arguments when the request did not ask.
   */
  private finishToolCalls(): { toolCalls: ModelToolCall[]; invalid: InvalidToolCall[] } {
    const toolCalls: ModelToolCall[] = [];
    const invalid: InvalidToolCall[] = [];
    const keep = (c: InvalidToolCall): void => {
      if (invalid.length < MAX_INVALID_TOOL_CALLS) invalid.push(c);
    };
    for (const call of this.calls.values()) {
      if (call.structured) continue;
      if (call.notOffered !== undefined) {
        keep(
          invalidToolCall({
            id: call.id,
            providerName: call.notOffered,
            code: 'tool.not_offered',
            raw: call.raw,
          }),
        );
        continue;
      }
      if (call.name === undefined || call.version === undefined) continue;
      const parsed = parseToolArguments(call.raw);
      if ('args' in parsed) {
        toolCalls.push({
          id: call.id,
          name: call.name,
          version: call.version,
          args: parsed.args,
          rawArguments: call.raw,
        });
        continue;
      }
      if (this.reporting) {
        const providerName = this.init.codec.encode({ name: call.name, version: call.version });
        const tool = versionedName(call.name, call.version);
        keep(
          invalidToolCall({
            id: call.id,
            providerName,
            tool,
            code: parsed.code,
            raw: call.raw,
            kind: parsed.kind,
          }),
        );
        continue;
      }
      if (parsed.code === 'tool.arguments_not_json')
        throw new ModelError('model.invalid_tool_arguments', `arguments of ${call.name} are not valid JSON`, {
          details: { tool: call.name, preview: call.raw.slice(0, 200) },
        });
      throw new ModelError(
        'model.invalid_tool_arguments',
        `arguments of ${call.name} are not a JSON object`,
        {
          details: { tool: call.name },
        },
      );
    }
    return { toolCalls, invalid };
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
