import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { hrTimeToMicroseconds, ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** One exported span as written by {@link JsonLinesSpanExporter} (times in microseconds since the epoch). */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly startUs: number;
  readonly endUs: number;
  readonly status: { readonly code: number; readonly message?: string };
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly resource: Readonly<Record<string, unknown>>;
  readonly events: readonly {
    readonly name: string;
    readonly attributes?: Readonly<Record<string, unknown>>;
  }[];
}

/** OpenTelemetry attribute values are primitives or arrays of them; drop anything else (the workflow
 * span sink merges the whole WorkflowInfo, objects included, into the attributes). */
function plainAttributes(attributes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'object' || Array.isArray(v)) out[k] = v;
  }
  return out;
}

/** The record of one finished span (also used by tests on in-memory spans). */
export function spanRecord(span: ReadableSpan): SpanRecord {
  const ctx = span.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    startUs: hrTimeToMicroseconds(span.startTime),
    endUs: hrTimeToMicroseconds(span.endTime),
    status: span.status,
    attributes: plainAttributes(span.attributes),
    resource: span.resource.attributes,
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
  };
}

/**
 * Appends every finished span as one JSON line to a file: an exporter that works offline and survives
 * the process (spans written before a crash stay written; use it with the simple span processor so each
 * span is written when it ends). Several processes may append to the same file: each line is one
 * `appendFileSync` call.
 * Failure: a write error makes that export report FAILED with the error (the SDK logs it); the run is
 * never affected.
 */
export class JsonLinesSpanExporter implements SpanExporter {
  constructor(private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    try {
      if (spans.length > 0)
        appendFileSync(this.file, spans.map((s) => `${JSON.stringify(spanRecord(s))}\n`).join(''));
      resultCallback({ code: ExportResultCode.SUCCESS });
    } catch (err) {
      resultCallback({
        code: ExportResultCode.FAILED,
        error: err instanceof Error ? err : new Error(String(err)),
      });
    }
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
