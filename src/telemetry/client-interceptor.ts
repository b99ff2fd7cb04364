import { context, trace, TraceFlags, type Context, type Tracer } from '@opentelemetry/api';
import type {
  Next,
  WorkflowCancelInput,
  WorkflowClientInterceptor,
  WorkflowSignalInput,
  WorkflowSignalWithStartInput,
  WorkflowStartInput,
  WorkflowStartUpdateInput,
  WorkflowTerminateInput,
} from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { otelTraceIdForRun, rootSpanIdForRun } from '../contract/run-trace.js';

/** The context of a run's virtual root span: spans started in it belong to the run's trace. */
export function runTraceContext(runId: string): Context {
  return trace.setSpanContext(context.active(), {
    traceId: otelTraceIdForRun(runId),
    spanId: rootSpanIdForRun(runId),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/**
 * Client interceptor: every call about a run (start, signal, signal-with-start, update, cancel,
 * terminate) is traced by the Temporal OpenTelemetry client interceptor inside the run's own trace, and
 * the trace context travels to the workflow in the call's headers. A caller's active span is not the
 * parent: a run outlives the request that started it, and its signals come from other requests.
 * Queries and describes are not traced (they are polled).
 */
export class RunTraceClientInterceptor implements WorkflowClientInterceptor {
  private readonly otel: OpenTelemetryWorkflowClientInterceptor;

  constructor(tracer: Tracer) {
    this.otel = new OpenTelemetryWorkflowClientInterceptor({ tracer });
  }

  start(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'start'>): Promise<string> {
    return context.with(runTraceContext(input.options.workflowId), () => this.otel.start(input, next));
  }

  startWithDetails(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'startWithDetails'>) {
    return context.with(runTraceContext(input.options.workflowId), () =>
      this.otel.startWithDetails(input, next),
    );
  }

  signal(input: WorkflowSignalInput, next: Next<WorkflowClientInterceptor, 'signal'>): Promise<void> {
    return context.with(runTraceContext(input.workflowExecution.workflowId), () =>
      this.otel.signal(input, next),
    );
  }

  signalWithStart(
    input: WorkflowSignalWithStartInput,
    next: Next<WorkflowClientInterceptor, 'signalWithStart'>,
  ) {
    return context.with(runTraceContext(input.options.workflowId), () =>
      this.otel.signalWithStart(input, next),
    );
  }

  startUpdate(input: WorkflowStartUpdateInput, next: Next<WorkflowClientInterceptor, 'startUpdate'>) {
    return context.with(runTraceContext(input.workflowExecution.workflowId), () =>
      this.otel.startUpdate(input, next),
    );
  }

  cancel(input: WorkflowCancelInput, next: Next<WorkflowClientInterceptor, 'cancel'>) {
    return context.with(runTraceContext(input.workflowExecution.workflowId), () =>
      this.otel.cancel(input, next),
    );
  }

  terminate(input: WorkflowTerminateInput, next: Next<WorkflowClientInterceptor, 'terminate'>) {
    return context.with(runTraceContext(input.workflowExecution.workflowId), () =>
      this.otel.terminate(input, next),
    );
  }
}
