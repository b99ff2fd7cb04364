/**
 * The trace identity of an agent run. A run's OpenTelemetry trace id is a pure function of its run id
 * (the workflow id, which is also the `traceId` of every AgentEvent of the run), so every process that
 * touches the run (the starting client, a client sending a signal hours later, the worker that replays it
 * after a crash) lands in the same trace without asking anyone.
 *
 * Pure string code with no Node.js imports: it runs in the workflow sandbox as well.
 */

/** W3C `traceparent` header key, as the W3C propagator reads it. */
export const TRACEPARENT = 'traceparent';

function fnv1a32(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // final avalanche so neighbouring run ids differ in every hex digit
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

function hexDigest(text: string, words: number, salt: number): string {
  let out = '';
  for (let w = 0; w < words; w++)
    out += fnv1a32(text, salt + w * 0x9e3779b9)
      .toString(16)
      .padStart(8, '0');
  // an all-zero id is invalid in W3C trace context; make it valid (2^-128 chance)
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

/** The 32-hex-digit OpenTelemetry trace id of the run `runId`. Deterministic; never throws. */
export function otelTraceIdForRun(runId: string): string {
  return hexDigest(runId, 4, 0x61676e74);
}

/**
 * The 16-hex-digit span id of the run's virtual root: the parent of the run's top spans. It is never
 * exported itself (a run has no process that sees it from start to end), so trace viewers show it as
 * the trace's (missing) root.
 */
export function rootSpanIdForRun(runId: string): string {
  return hexDigest(runId, 2, 0x726f6f74);
}

/** The W3C `traceparent` value (sampled) that puts a span under the run's virtual root. */
export function traceparentForRun(runId: string): string {
  return `00-${otelTraceIdForRun(runId)}-${rootSpanIdForRun(runId)}-01`;
}
