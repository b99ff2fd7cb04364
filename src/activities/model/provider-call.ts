import { ModelError, isModelError } from './errors.js';
import { priceFor } from './pricing.js';
import { StreamAssembler } from './stream-assembler.js';
import { ToolNameCodec } from './tool-names.js';
import { ModelRequestSchema } from './types.js';
import type { PriceTable } from './pricing.js';
import type { ModelOutput, ModelRequest, ModelStreamOptions } from './types.js';

export interface ProviderCallInit {
  readonly provider: string;
  readonly configuredModel: string;
  readonly prices: PriceTable;
  readonly structuredToolName?: string;
  /** Maps an SDK/transport error to a ModelError (called only for errors that are not ModelErrors). */
  readonly mapError: (err: unknown) => ModelError;
}

/** Validates a request; throws `model.invalid_request` naming the first bad field. */
export function parseModelRequest(req: ModelRequest): ModelRequest {
  const parsed = ModelRequestSchema.safeParse(req);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue ? issue.path.join('.') || '(root)' : '(root)';
    throw new ModelError(
      'model.invalid_request',
      `invalid model request at ${path}: ${issue?.message ?? 'invalid'}`,
      {
        details: { path },
      },
    );
  }
  return parsed.data;
}

/**
 * The skeleton every provider shares: validate the request (throws before any event), emit
 * `model.started`, check price and tool names before any I/O, run `body` (which feeds the assembler
 * from the provider stream), then complete. Abort of `opts.signal` at any point ends in
 * `model.cancelled`; every failure emits `model.failed` once and rejects with a ModelError.
 */
export async function runProviderCall(
  init: ProviderCallInit,
  request: ModelRequest,
  opts: ModelStreamOptions,
  body: (asm: StreamAssembler, ctx: { req: ModelRequest; codec: ToolNameCodec }) => Promise<void>,
): Promise<ModelOutput> {
  const req = parseModelRequest(request);
  let asm: StreamAssembler | undefined;
  const cancelled = (): ModelError =>
    new ModelError('model.cancelled', `the ${init.provider} model call was cancelled`, {
      details: { callId: req.callId },
    });
  try {
    const price = priceFor(init.prices, req.model);
    const codec = new ToolNameCodec(req.tools);
    asm = new StreamAssembler({
      req,
      provider: init.provider,
      onEvent: opts.onEvent,
      price,
      codec,
      configuredModel: init.configuredModel,
      ...(init.structuredToolName !== undefined ? { structuredToolName: init.structuredToolName } : {}),
    });
    asm.started();
    if (opts.signal.aborted) throw cancelled();
    await body(asm, { req, codec });
    if (opts.signal.aborted) throw cancelled();
    return asm.complete();
  } catch (err) {
    let modelErr: ModelError;
    if (opts.signal.aborted && !(isModelError(err) && err.code === 'model.blocked')) modelErr = cancelled();
    else modelErr = isModelError(err) ? err : init.mapError(err);
    if (asm === undefined) {
      opts.onEvent({
        type: 'model.started',
        callId: req.callId,
        purpose: req.purpose,
        model: req.model,
        provider: init.provider,
      });
      opts.onEvent({
        type: 'model.failed',
        callId: req.callId,
        code: modelErr.code,
        retryable: modelErr.retryable,
        message: modelErr.message,
      });
      throw modelErr;
    }
    return asm.fail(modelErr);
  }
}
