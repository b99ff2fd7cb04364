import { context, propagation, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { AsyncLocalStorageContextManager } from './context-manager.js';
import { RunTraceClientInterceptor } from './client-interceptor.js';
import { JsonLinesSpanExporter } from './jsonl-exporter.js';
import { tracingConfigFromEnv, type TracingConfig } from './tracing-config.js';

/**
 * The tracing of one process: a tracer provider of its own (the global OpenTelemetry tracer provider is
 * left alone), a simple span processor (each span is exported when it ends, so spans written before a
 * crash are kept), and the Temporal interceptors bound to its tracer.
 */
export interface HarnessTracing {
  readonly tracer: Tracer;
  readonly resource: Resource;
  readonly processor: SpanProcessor;
  /** For `new Client({ interceptors: { workflow: ... } })`: start, signal, update, cancel, terminate spans. */
  clientInterceptors(): WorkflowClientInterceptor[];
  /** For `Worker.create({ interceptors: { activity } })`: one `RunActivity:<type>` span per attempt. */
  activityInterceptors(): ActivityInterceptorsFactory[];
  /** For `Worker.create({ sinks })`: receives the spans the workflow sandbox finishes. */
  sinks(): InjectedSinks<OpenTelemetrySinks>;
  /** Export everything buffered. Never throws (export errors are the SDK's to log). */
  flush(): Promise<void>;
  /** Flush and stop exporting. */
  shutdown(): Promise<void>;
}

let contextInstalled = false;

/**
 * Register, once per process, what trace propagation needs globally: an AsyncLocalStorage context
 * manager and the W3C trace-context propagator. Only called when tracing is on; an application that
 * registered its own keeps them (the OpenTelemetry API ignores a second registration).
 */
function installTraceContext(): void {
  if (contextInstalled) return;
  contextInstalled = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/** Tracing that exports to `exporter` (tests pass an `InMemorySpanExporter`). */
export function createTracing(exporter: SpanExporter, serviceName: string): HarnessTracing {
  installTraceContext();
  const resource = new Resource({ 'service.name': serviceName });
  const processor = new SimpleSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(processor);
  const tracer = provider.getTracer('agent-harness');
  return {
    tracer,
    resource,
    processor,
    clientInterceptors: () => [new RunTraceClientInterceptor(tracer)],
    activityInterceptors: () => [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: () => ({ exporter: makeWorkflowExporter(processor, resource) }),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The exporter a config asks for; `undefined` when tracing is off. */
function exporterFor(config: TracingConfig): SpanExporter | undefined {
  switch (config.mode) {
    case 'off':
      return undefined;
    case 'console':
      return new ConsoleSpanExporter();
    case 'jsonl':
      return new JsonLinesSpanExporter(config.file);
  }
}

/**
 * Tracing as `HARNESS_OTEL` / `HARNESS_OTEL_FILE` ask, or `undefined` when it is off (then nothing is
 * registered, nothing intercepted: zero overhead).
 * @throws HarnessError `telemetry.invalid_config` on a bad setting (see {@link tracingConfigFromEnv}).
 */
export function tracingFromEnv(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): HarnessTracing | undefined {
  return tracingFromConfig(tracingConfigFromEnv(env), serviceName);
}

/** Tracing as an already read config asks, or `undefined` when it is off. */
export function tracingFromConfig(config: TracingConfig, serviceName: string): HarnessTracing | undefined {
  const exporter = exporterFor(config);
  return exporter ? createTracing(exporter, serviceName) : undefined;
}
