import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { JsonLinesSpanExporter, type SpanRecord } from '../../../src/telemetry/jsonl-exporter.js';

describe('JsonLinesSpanExporter', () => {
  it('appends one JSON line per finished span with ids, parent, times, plain attributes and resource', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'jsonl-')), 'nested', 'spans.jsonl');
    const provider = new BasicTracerProvider();
    provider.addSpanProcessor(new SimpleSpanProcessor(new JsonLinesSpanExporter(file)));
    const tracer = provider.getTracer('t');
    const outer = tracer.startSpan('outer');
    const inner = tracer.startSpan(
      'inner',
      { attributes: { n: 1, tags: ['a', 'b'] } },
      trace.setSpan(ROOT_CONTEXT, outer),
    );
    inner.end();
    outer.end();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const [innerRecord, outerRecord] = lines.map((l) => JSON.parse(l) as SpanRecord);
    expect(innerRecord?.name).toBe('inner');
    expect(outerRecord?.name).toBe('outer');
    expect(innerRecord?.traceId).toBe(outerRecord?.traceId);
    expect(innerRecord?.parentSpanId).toBe(outerRecord?.spanId);
    expect(innerRecord?.attributes).toEqual({ n: 1, tags: ['a', 'b'] });
    expect(innerRecord!.endUs).toBeGreaterThanOrEqual(innerRecord!.startUs);
    expect(innerRecord?.resource['service.name']).toBeTypeOf('string');
  });

  it('reports FAILED when the file cannot be written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jsonl-'));
    const exporter = new JsonLinesSpanExporter(dir); // a directory: appendFileSync fails
    const provider = new BasicTracerProvider();
    const span = provider.getTracer('t').startSpan('x');
    span.end();
    const result = await new Promise<{ code: ExportResultCode; error?: Error }>((r) =>
      exporter.export([span as unknown as Parameters<typeof exporter.export>[0][number]], r),
    );
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error?.message).toMatch(/EISDIR/);
  });
});
