/**
 * The OpenTelemetry trace the current workflow execution runs in, as the traced workflow interceptors
 * saw it in the start headers (`tracing-interceptors.ts`). Module state of the workflow sandbox: every
 * workflow execution evaluates the bundle's modules afresh, so it is per run. The start headers are in
 * the history, so a replay on a traced worker sees the same trace id. An untraced bundle never sets it.
 */
let current: string | undefined;

/** Record the trace id of this execution (a 32-hex-digit W3C trace id; anything else is ignored). */
export function noteRunTraceId(traceId: string | undefined): void {
  if (traceId !== undefined && /^[0-9a-f]{32}$/.test(traceId) && !/^0+$/.test(traceId)) current = traceId;
}

/** The trace id of this execution when tracing is on, else undefined. Never throws. */
export function runTraceId(): string | undefined {
  return current;
}

/** The trace id inside a W3C `traceparent` value (`00-<trace id>-<span id>-<flags>`), or undefined. */
export function traceIdOfTraceparent(traceparent: unknown): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent);
  return m?.[1];
}
