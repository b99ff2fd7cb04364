import { describe, expect, it } from 'vitest';
import {
  contextPrecision,
  passRate,
  refMatches,
  requiredFactRecall,
  staleContextRate,
  tokensPerSuccessfulStep,
  unauthorizedContextRate,
} from '../../../../src/activities/context/metrics.js';
import type { ContextItem } from '../../../../src/activities/context/types.js';

const item = (itemId: string, sourceRef: string, over: Partial<ContextItem> = {}): ContextItem => ({
  itemId,
  kind: 'tool_fact',
  trust: 'verified',
  sourceRef,
  content: itemId,
  ...over,
});

const pkg = {
  items: [
    item('sys', 'profile:refund', { kind: 'instruction', trust: 'system' }),
    item('o1', 'order#1', { effectiveAt: '2026-05-01T10:00:00Z' }),
    item('o2', 'order#1', { effectiveAt: '2026-05-01T11:00:00Z' }),
    item('l', 'logistics'),
    item('promo', 'policy:P9', { kind: 'retrieved_evidence', expiresAt: '2026-04-01T00:00:00Z' }),
  ],
};

describe('context metrics', () => {
  it('matches refs by key, version and part', () => {
    expect(refMatches('order', 'order')).toBe(true);
    expect(refMatches('order#3', 'order')).toBe(true);
    expect(refMatches('order/lines', 'order')).toBe(true);
    expect(refMatches('orders', 'order')).toBe(false);
  });

  it('computes precision over non-instruction items', () => {
    expect(contextPrecision(pkg, ['order', 'logistics'])).toBe(3 / 4);
    expect(contextPrecision({ items: [pkg.items[0]!] }, [])).toBe(1);
  });

  it('computes required fact recall', () => {
    expect(requiredFactRecall(pkg, ['order', 'logistics', 'policy:R001'])).toBeCloseTo(2 / 3, 12);
    expect(requiredFactRecall(pkg, [])).toBe(1);
  });

  it('counts expired and superseded items as stale', () => {
    expect(staleContextRate(pkg, '2026-05-01T12:00:00Z')).toBe(2 / 5);
    expect(staleContextRate({ items: [] }, new Date())).toBe(0);
  });

  it('counts items from unallowed sources and untrusted instructions as unauthorized', () => {
    expect(unauthorizedContextRate(pkg, ['profile:refund', 'order', 'logistics'])).toBe(1 / 5);
    const bad = { items: [item('x', 'profile:refund', { kind: 'instruction', trust: 'untrusted' })] };
    expect(unauthorizedContextRate(bad, ['profile:refund'])).toBe(1);
  });

  it('computes pass rates and tokens per successful step', () => {
    expect(passRate([true, false, true, true])).toBe(0.75);
    expect(passRate([])).toBe(1);
    expect(
      tokensPerSuccessfulStep([
        { tokens: 100, succeeded: true },
        { tokens: 50, succeeded: false },
        { tokens: 150, succeeded: true },
      ]),
    ).toBe(150);
    expect(tokensPerSuccessfulStep([{ tokens: 10, succeeded: false }])).toBeNull();
  });
});
