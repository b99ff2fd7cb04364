import { countTokens } from '../context/tokenizer.js';
import { ModelError } from './errors.js';
import { ZERO_PRICES } from './pricing.js';
import { runProviderCall } from './provider-call.js';
import type { PriceTable } from './pricing.js';
import type { ModelScript, ScriptMatch, ScriptedResponse } from './scripted-script.js';
import type { StreamAssembler } from './stream-assembler.js';
import type { ToolNameCodec } from './tool-names.js';
import type { ModelOutput, ModelProvider, ModelRequest, ModelStreamOptions } from './types.js';

/** Splits `s` into at most `n` non-empty pieces (deterministic). */
function split(s: string, n = 3): string[] {
  if (s.length <= 1) return s === '' ? [] : [s];
  const size = Math.ceil(s.length / n);
  const parts: string[] = [];
  for (let i = 0; i < s.length; i += size) parts.push(s.slice(i, i + size));
  return parts;
}

function lastInput(req: ModelRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m && (m.role === 'user' || m.role === 'tool')) return m.content;
  }
  return '';
}

function matches(match: ScriptMatch, req: ModelRequest): boolean {
  if (match.purpose !== undefined && match.purpose !== req.purpose) return false;
  if (match.step !== undefined && match.step !== req.messages.filter((m) => m.role === 'assistant').length)
    return false;
  const input = lastInput(req);
  if (match.contains !== undefined && !input.includes(match.contains)) return false;
  if (match.matches !== undefined && !new RegExp(match.matches).test(input)) return false;
  return true;
}

/**
 * A deterministic stand-in for a model (provider name `scripted`): answers from a {@link ModelScript}
 * and emits the same normalized events as the real providers, deltas split into a few chunks.
 * Fails with `model.script_no_match` when no entry matches and there is no fallback, and with
 * `model.unknown_tool` when the script names a tool the request did not offer (`model.invalid_tool_arguments`
 * for `rawArguments` that are not a JSON object), unless the request asks for such calls to be
 * reported (`invalidToolCalls: 'report'`): then they come back in `invalidToolCalls`. A response with
 * `delayMs` is returned that much later, even when the call was cancelled meanwhile.
 */
export class ScriptedProvider implements ModelProvider {
  readonly name = 'scripted';

  constructor(
    private readonly script: ModelScript,
    private readonly prices: PriceTable = ZERO_PRICES,
  ) {}

  stream(req: ModelRequest, opts: ModelStreamOptions): Promise<ModelOutput> {
    let holdMs = 0;
    const init = {
      provider: this.name,
      configuredModel: 'scripted',
      prices: this.prices,
      mapError: (err: unknown) =>
        new ModelError('model.provider_error', `scripted provider failed: ${(err as Error).message}`, {
          cause: err,
        }),
    };
    const answered = runProviderCall(init, req, opts, async (asm, { req: valid, codec }) => {
      const response =
        this.script.entries.find((e) => matches(e.match, valid))?.response ?? this.script.fallback;
      if (response === undefined) {
        throw new ModelError(
          'model.script_no_match',
          `no script entry matches call ${valid.callId} (purpose ${valid.purpose})`,
          {
            details: { callId: valid.callId, purpose: valid.purpose },
          },
        );
      }
      holdMs = response.delayMs ?? 0;
      await this.play(asm, valid, codec, response, opts.signal);
    });
    // A held answer is returned late whatever the cancellation (a provider that does not stop).
    return answered.then((out) =>
      holdMs === 0 ? out : new Promise<ModelOutput>((resolve) => setTimeout(() => resolve(out), holdMs)),
    );
  }

  private async play(
    asm: StreamAssembler,
    req: ModelRequest,
    codec: ToolNameCodec,
    response: ScriptedResponse,
    signal: AbortSignal,
  ): Promise<void> {
    const step = async (): Promise<void> => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal.aborted) throw new ModelError('model.cancelled', 'the scripted model call was cancelled');
    };
    for (const piece of split(response.text)) {
      asm.addText(piece);
      await step();
    }
    const argsTexts: string[] = [];
    for (const [i, call] of response.toolCalls.entries()) {
      const raw = call.rawArguments ?? JSON.stringify(call.args);
      argsTexts.push(raw);
      const [first = '', ...rest] = split(raw);
      asm.addToolCallFragment(i, {
        id: call.id ?? `${req.callId}_tc${i}`,
        name: codec.encode(call),
        arguments: first,
      });
      for (const piece of rest) {
        await step();
        asm.addToolCallFragment(i, { arguments: piece });
      }
    }
    asm.setStopReason(response.stopReason ?? (response.toolCalls.length > 0 ? 'tool_calls' : 'end_turn'));
    asm.setUsage(
      response.usage ?? {
        inputTokens: req.messages.reduce((n, m) => n + countTokens(m.content), 0),
        outputTokens: countTokens(response.text) + argsTexts.reduce((n, a) => n + countTokens(a), 0),
      },
    );
  }
}
