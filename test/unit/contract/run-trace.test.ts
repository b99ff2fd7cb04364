import { isValidSpanId, isValidTraceId } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { otelTraceIdForRun, rootSpanIdForRun, traceparentForRun } from '../../../src/contract/run-trace.js';

describe('run trace identity', () => {
  it('is a valid W3C trace id and span id, the same for the same run', () => {
    const id = otelTraceIdForRun('refund-123');
    expect(isValidTraceId(id)).toBe(true);
    expect(isValidSpanId(rootSpanIdForRun('refund-123'))).toBe(true);
    expect(otelTraceIdForRun('refund-123')).toBe(id);
    expect(traceparentForRun('refund-123')).toBe(`00-${id}-${rootSpanIdForRun('refund-123')}-01`);
  });

  it('differs between runs, also for neighbouring ids and the empty id', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) ids.add(otelTraceIdForRun(`run-${i}`));
    ids.add(otelTraceIdForRun(''));
    expect(ids.size).toBe(2001);
    expect(isValidTraceId(otelTraceIdForRun(''))).toBe(true);
    const a = otelTraceIdForRun('run-1');
    const b = otelTraceIdForRun('run-2');
    const sameDigits = [...a].filter((c, i) => c === b[i]).length;
    expect(sameDigits).toBeLessThan(12);
  });
});
