import type Anthropic from '@anthropic-ai/sdk';
import { requireOptional } from '../../optional-package.js';
import { ModelError } from '../errors.js';
import { runProviderCall } from '../provider-call.js';
import { mapSdkError } from './sdk-errors.js';
import { ANTHROPIC_STRUCTURED_TOOL, anthropicStopReason, toAnthropicParams } from './anthropic-mapping.js';
import type { PriceTable } from '../pricing.js';
import type { StreamAssembler } from '../stream-assembler.js';
import type { ModelOutput, ModelProvider, ModelRequest, ModelStreamOptions } from '../types.js';

export interface AnthropicProviderConfig {
  /** e.g. `https://api.anthropic.com` (the SDK appends `/v1/messages`). */
  readonly baseURL: string;
  /** From worker composition or the environment, never from a request. */
  readonly apiKey: string;
  /** Provider model name, e.g. `claude-sonnet-4-5`. */
  readonly model: string;
  readonly prices: PriceTable;
  /** Per-request timeout in ms (SDK default: 10 minutes). */
  readonly timeoutMs?: number;
}

function unknownEvent(what: string): ModelError {
  return new ModelError('model.unknown_event', `anthropic sent an unknown stream event: ${what}`, {
    details: { what },
  });
}

const IGNORED_BLOCKS = new Set(['thinking', 'redacted_thinking']);
const IGNORED_DELTAS = new Set(['thinking_delta', 'signature_delta', 'citations_delta']);

/** Feeds one raw stream event; returns true on `message_stop`. Unknown types throw `model.unknown_event`. */
function feedEvent(asm: StreamAssembler, ev: Record<string, unknown>, toolBlocks: Set<number>): boolean {
  switch (ev.type) {
    case 'message_start': {
      const msg = ev.message as { model?: string; usage?: { input_tokens?: number; output_tokens?: number } };
      asm.setProviderModel(msg.model);
      asm.setUsage({ inputTokens: msg.usage?.input_tokens, outputTokens: msg.usage?.output_tokens });
      return false;
    }
    case 'content_block_start': {
      const index = ev.index as number;
      const block = ev.content_block as {
        type: string;
        text?: string;
        id?: string;
        name?: string;
        input?: unknown;
      };
      if (block.type === 'text') asm.addText(block.text ?? '');
      else if (block.type === 'tool_use') {
        toolBlocks.add(index);
        const input = block.input;
        const initial =
          input && typeof input === 'object' && Object.keys(input).length > 0 ? JSON.stringify(input) : '';
        asm.addToolCallFragment(index, {
          ...(block.id ? { id: block.id } : {}),
          ...(block.name ? { name: block.name } : {}),
          arguments: initial,
        });
      } else if (!IGNORED_BLOCKS.has(block.type)) throw unknownEvent(`content block ${block.type}`);
      return false;
    }
    case 'content_block_delta': {
      const index = ev.index as number;
      const delta = ev.delta as { type: string; text?: string; partial_json?: string };
      if (delta.type === 'text_delta') asm.addText(delta.text ?? '');
      else if (delta.type === 'input_json_delta') {
        if (!toolBlocks.has(index))
          throw unknownEvent(`input_json_delta for block ${index} that is not a tool call`);
        asm.addToolCallFragment(index, { arguments: delta.partial_json ?? '' });
      } else if (!IGNORED_DELTAS.has(delta.type)) throw unknownEvent(`delta ${delta.type}`);
      return false;
    }
    case 'content_block_stop':
      return false;
    case 'message_delta': {
      const delta = ev.delta as { stop_reason?: string | null };
      const usage = ev.usage as { input_tokens?: number | null; output_tokens?: number | null } | undefined;
      if (usage) asm.setUsage({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
      if (delta.stop_reason) {
        const reason = anthropicStopReason(delta.stop_reason);
        asm.setStopReason(reason);
        if (delta.stop_reason === 'refusal')
          asm.setBlocked('refusal', 'the model refused to answer (stop_reason refusal)');
      }
      return false;
    }
    case 'message_stop':
      return true;
    default:
      throw unknownEvent(String(ev.type));
  }
}

/**
 * Provider for the Anthropic Messages API over `@anthropic-ai/sdk`, retries disabled (Temporal
 * retries the activity). A stream that ends without `message_stop` fails with
 * `model.connection_lost`. See {@link ModelProvider} for the event and failure contract.
 */
export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic';
  private readonly client: Anthropic;

  /** @throws `package.missing` (MissingPackageError) when the optional package `@anthropic-ai/sdk` is not installed. */
  constructor(private readonly config: AnthropicProviderConfig) {
    const { Anthropic: Sdk } = requireOptional<{ Anthropic: typeof Anthropic }>('@anthropic-ai/sdk');
    this.client = new Sdk({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      maxRetries: 0,
      ...(config.timeoutMs !== undefined ? { timeout: config.timeoutMs } : {}),
    });
  }

  stream(req: ModelRequest, opts: ModelStreamOptions): Promise<ModelOutput> {
    const init = {
      provider: this.name,
      configuredModel: this.config.model,
      prices: this.config.prices,
      structuredToolName: ANTHROPIC_STRUCTURED_TOOL,
      mapError: (err: unknown) => mapSdkError(this.name, err),
    };
    return runProviderCall(init, req, opts, async (asm, { req: valid }) => {
      const stream = await this.client.messages.create(toAnthropicParams(valid, this.config.model), {
        signal: opts.signal,
      });
      const toolBlocks = new Set<number>();
      let stopped = false;
      for await (const ev of stream) {
        if (feedEvent(asm, ev as unknown as Record<string, unknown>, toolBlocks)) stopped = true;
      }
      if (!stopped && !opts.signal.aborted) {
        throw new ModelError('model.connection_lost', 'the anthropic stream ended before message_stop', {
          details: { provider: this.name },
        });
      }
    });
  }
}
