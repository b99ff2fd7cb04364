/**
 * Workflow interceptors of a traced worker (bundled into the workflow sandbox only when tracing is on,
 * see `bundleWorkflows({ tracing: true })`). They delegate to `@temporalio/interceptors-opentelemetry`
 * and add the run's trace identity:
 * - a workflow started or signalled without trace headers (by an untraced client) is traced under the
 *   run's own trace (`traceparentForRun(workflowId)`), so a run is one trace whoever started it;
 * - the trace id of the execution is noted (`run-trace-context.ts`) for the events' `traceId`;
 * - queries are not traced: they are polled (every `state` read would be a span) and a span costs the
 *   sandbox's seeded random stream.
 *
 * Adds no commands and no markers: the OpenTelemetry interceptors only add headers to scheduled
 * activities and export finished spans through the `exporter` sink (never called during replay).
 */
import type { Headers } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import type {
  Next,
  SignalInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
} from '@temporalio/workflow';
import { workflowInfo } from '@temporalio/workflow';
import { TRACEPARENT, traceparentForRun } from '../../contract/run-trace.js';
import { noteRunTraceId, traceIdOfTraceparent } from './run-trace-context.js';
// brings TRACED_BUNDLE_MARKER into the bundle: the worker checks a prebuilt bundle for it
import '../../contract/traced-bundle.js';

function withRunTrace(headers: Headers): Headers {
  if (headers[TRACE_HEADER] !== undefined) return headers;
  const carrier = { [TRACEPARENT]: traceparentForRun(workflowInfo().workflowId) };
  return { ...headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) };
}

/** The `traceparent` the trace header carries, or undefined when it carries none (or is malformed). */
function traceparentOf(headers: Headers): unknown {
  const payload = headers[TRACE_HEADER];
  if (payload === undefined) return undefined;
  try {
    return defaultPayloadConverter.fromPayload<Record<string, unknown> | null>(payload)?.[TRACEPARENT];
  } catch {
    return undefined;
  }
}

class RunTraceInboundInterceptor implements WorkflowInboundCallsInterceptor {
  private readonly otel = new OpenTelemetryInboundInterceptor();

  execute(
    input: WorkflowExecuteInput,
    next: Next<WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const headers = withRunTrace(input.headers);
    // The run's trace id, for the events' envelope (`traceId`, docs/events.md).
    noteRunTraceId(traceIdOfTraceparent(traceparentOf(headers)));
    return this.otel.execute({ ...input, headers }, next);
  }

  handleSignal(
    input: SignalInput,
    next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>,
  ): Promise<void> {
    return this.otel.handleSignal({ ...input, headers: withRunTrace(input.headers) }, next);
  }

  handleUpdate(
    input: UpdateInput,
    next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>,
  ): Promise<unknown> {
    return this.otel.handleUpdate({ ...input, headers: withRunTrace(input.headers) }, next);
  }

  validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    this.otel.validateUpdate({ ...input, headers: withRunTrace(input.headers) }, next);
  }
}

/** The entry the bundler calls (`workflowInterceptorModules`). */
export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new RunTraceInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
