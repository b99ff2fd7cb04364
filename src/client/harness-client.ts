import { Client, type Connection } from '@temporalio/client';
import type { HarnessTracing } from '../worker/telemetry/tracing.js';

export interface HarnessClientOptions {
  readonly connection: Connection;
  readonly namespace: string;
  /** OpenTelemetry tracing (`tracingFromEnv('agent-harness-client')`); absent means no interceptors. */
  readonly tracing?: HarnessTracing;
}

/**
 * A Temporal client for the harness. With tracing, starting a run, signalling it (approve, reject,
 * reconcile, provideInput, cancelRun), updating, cancelling or terminating it is a span in the run's
 * trace, and the trace context travels to the workflow in the call's headers. Never throws.
 */
export function createHarnessClient(o: HarnessClientOptions): Client {
  return new Client({
    connection: o.connection,
    namespace: o.namespace,
    ...(o.tracing ? { interceptors: { workflow: o.tracing.clientInterceptors() } } : {}),
  });
}
