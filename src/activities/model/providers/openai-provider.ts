import type OpenAI from 'openai';
import { requireOptional } from '../../optional-package.js';
import { ModelError } from '../errors.js';
import { runProviderCall } from '../provider-call.js';
import { mapSdkError } from './sdk-errors.js';
import { openAiStopReason, toOpenAiParams } from './openai-mapping.js';
import type { PriceTable } from '../pricing.js';
import type { StreamAssembler } from '../stream-assembler.js';
import type { ModelOutput, ModelProvider, ModelRequest, ModelStreamOptions } from '../types.js';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

export interface OpenAiProviderConfig {
  /** e.g. `https://api.openai.com/v1` or a compatible server's `/v1` URL. */
  readonly baseURL: string;
  /** From worker composition or the environment, never from a request. */
  readonly apiKey: string;
  /** Provider model name, e.g. `gpt-4.1-mini`. */
  readonly model: string;
  readonly prices: PriceTable;
  /** Per-request timeout in ms (SDK default: 10 minutes). */
  readonly timeoutMs?: number;
}

function unknownChunk(what: string): ModelError {
  return new ModelError('model.unknown_event', `openai sent an unknown stream chunk: ${what}`, {
    details: { what },
  });
}

function feedChunk(asm: StreamAssembler, chunk: ChatCompletionChunk): void {
  const loose = chunk as unknown as { object?: unknown; choices?: unknown };
  if (loose.object !== undefined && loose.object !== 'chat.completion.chunk')
    throw unknownChunk(`object=${JSON.stringify(loose.object)}`);
  if (!Array.isArray(loose.choices)) throw unknownChunk('chunk without choices');
  asm.setProviderModel(chunk.model);
  if (chunk.usage)
    asm.setUsage({ inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens });
  for (const choice of chunk.choices) {
    if (choice.index !== 0) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') asm.addText(delta.content);
    if (typeof delta.refusal === 'string' && delta.refusal !== '')
      asm.setBlocked('refusal', `the model refused: ${delta.refusal.slice(0, 300)}`);
    for (const tc of delta.tool_calls ?? []) {
      if (tc.type !== undefined && tc.type !== 'function')
        throw unknownChunk(`tool call type ${String(tc.type)}`);
      asm.addToolCallFragment(tc.index, {
        ...(tc.id ? { id: tc.id } : {}),
        ...(tc.function?.name ? { name: tc.function.name } : {}),
        ...(tc.function?.arguments !== undefined ? { arguments: tc.function.arguments } : {}),
      });
    }
    if (choice.finish_reason) {
      const reason = openAiStopReason(choice.finish_reason);
      asm.setStopReason(reason);
      if (reason === 'content_filter')
        asm.setBlocked('content_filter', 'the provider content filter stopped the output');
    }
  }
}

/**
 * Provider for the OpenAI Chat Completions API and compatible servers, over the official `openai`
 * SDK with its retries disabled (Temporal retries the activity). See {@link ModelProvider} for the
 * event and failure contract.
 */
export class OpenAiProvider implements ModelProvider {
  readonly name = 'openai';
  private readonly client: OpenAI;

  /** @throws `package.missing` (MissingPackageError) when the optional package `openai` is not installed. */
  constructor(private readonly config: OpenAiProviderConfig) {
    const { OpenAI: Sdk } = requireOptional<{ OpenAI: typeof OpenAI }>('openai');
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
      mapError: (err: unknown) => mapSdkError(this.name, err),
    };
    return runProviderCall(init, req, opts, async (asm, { req: valid }) => {
      const stream = await this.client.chat.completions.create(toOpenAiParams(valid, this.config.model), {
        signal: opts.signal,
      });
      for await (const chunk of stream) feedChunk(asm, chunk);
    });
  }
}
