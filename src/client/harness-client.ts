import { Client, type Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { HarnessTracing } from '../telemetry/tracing.js';
import { harnessDataConverter } from '../codec/data-converter.js';
import { payloadCodecFromEnv } from '../codec/codec-from-env.js';

export interface HarnessClientOptions {
  readonly connection: Connection;
  readonly namespace: string;
  /** OpenTelemetry tracing (`tracingFromEnv('agent-harness-client')`); absent means no interceptors. */
  readonly tracing?: HarnessTracing;
  /**
   * The payload codec (docs/security.md). Default: the environment's (`HARNESS_CODEC_KEYS_FILE` or
   * `HARNESS_CODEC_KEYS`), off when neither is set; `null` turns it off. Use the keys of the workers.
   */
  readonly payloadCodec?: PayloadCodec | null;
}

/**
 * A Temporal client for the harness. With tracing, starting a run, signalling it (approve, reject,
 * reconcile, provideInput, cancelRun), updating, cancelling or terminating it is a span in the run's
 * trace, and the trace context travels to the workflow in the call's headers. With a payload codec,
 * what it sends is encrypted and what it reads (results, queries, memo) decrypted.
 * @throws CodecError `codec.keys_invalid` for bad codec keys in the environment; nothing else.
 */
export function createHarnessClient(o: HarnessClientOptions): Client {
  const codec = o.payloadCodec === undefined ? payloadCodecFromEnv() : (o.payloadCodec ?? undefined);
  const dataConverter = harnessDataConverter(codec);
  return new Client({
    connection: o.connection,
    namespace: o.namespace,
    ...(dataConverter ? { dataConverter } : {}),
    ...(o.tracing ? { interceptors: { workflow: o.tracing.clientInterceptors() } } : {}),
  });
}
