import { describe, expect, it } from 'vitest';
import {
  MAX_TAINT_DIGESTS,
  maskSecrets,
  taintDigestsOf,
  taintedKindsIn,
  taintFactUpdates,
} from '../../../../src/workflows/guardrails/data-taint.js';

const KEY = 'sk-live-Q3x9ZtP7mWcR2vLk8YhN4bJd';

describe('data taint', () => {
  it('keeps digests of the secrets and personal data a result carried, never the values', () => {
    const found = taintDigestsOf({ text: `OPENAI_API_KEY=${KEY}`, contact: { email: 'li.wei@example.com' } });
    expect(found.secret).toHaveLength(1);
    expect(found.personal).toHaveLength(1);
    const facts = taintFactUpdates({}, found);
    expect(Object.keys(facts).sort()).toEqual(['taint.personal', 'taint.secret']);
    expect(JSON.stringify(facts)).not.toContain(KEY);
    // The same values again change nothing.
    expect(taintFactUpdates(facts, found)).toEqual({});
  });

  it("does not take the run's own id for personal data where a tool echoes it", () => {
    // A test run id with a millisecond timestamp: its digits are Luhn-valid one time in ten.
    const runId = 'event-catalogue-4111111111111111-a';
    const echoed = { idempotencyKey: `${runId}:3`, note: `refund for ${runId}` };
    expect(taintDigestsOf(echoed).personal).toHaveLength(1);
    expect(taintDigestsOf(echoed, new Set([runId]))).toEqual({ secret: [], personal: [] });
    // The same digits outside the id still count.
    expect(
      taintDigestsOf({ ...echoed, card: '4111 1111 1111 1111' }, new Set([runId])).personal,
    ).toHaveLength(1);
  });

  it('finds tainted data in write arguments only when that value was read earlier', () => {
    const facts = taintFactUpdates({}, taintDigestsOf({ text: KEY }));
    expect(taintedKindsIn({ content: `copy: ${KEY}` }, facts)).toEqual(['secret']);
    expect(taintedKindsIn({ content: 'sk-live-AnotherKeyNotReadBefore123' }, facts)).toEqual([]);
    expect(taintedKindsIn({ content: 'nothing to see' }, facts)).toEqual([]);
    expect(taintedKindsIn({ content: KEY }, {})).toEqual([]);
  });

  it('keeps the newest digests only, and ignores malformed ones', () => {
    let facts: Record<string, string> = {};
    for (let i = 0; i < MAX_TAINT_DIGESTS + 5; i++)
      facts = {
        ...facts,
        ...taintFactUpdates(facts, { secret: [i.toString(16).padStart(16, '0')], personal: [] }),
      };
    expect(facts['taint.secret']!.split(' ')).toHaveLength(MAX_TAINT_DIGESTS);
    expect(taintFactUpdates(facts, { secret: ['not hex'], personal: [] })).toEqual({});
  });

  it('masks secrets in text shown to people', () => {
    expect(maskSecrets(`{"content":"key: ${KEY}","path":"a.txt"}`)).toBe(
      '{"content":"key: [secret]","path":"a.txt"}',
    );
  });
});
