import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { findDates, isVouched, vouchedDates } from '../../src/workflows/guardrails/commitments.js';
import type { RunEvidence } from '../../src/workflows/guardrails/run-evidence.js';

/** Evidence of one trusted artifact holding `text`. */
function evidenceOf(text: string): RunEvidence {
  return {
    observed: [],
    verified: [{ artifact: { data: { note: text } } }],
  } as unknown as RunEvidence;
}

/** CPU time of checking every date promise of `reply` against `evidence` (the best of 3). */
function cost(reply: string, evidence: RunEvidence): number {
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const start = performance.now();
    const vouched = vouchedDates(evidence, [], []);
    for (const d of findDates(reply)) isVouched(d, reply, vouched);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** A reply of `n` distinct time promises ("within 1 days within 2 days ..."): one phrase each. */
const promises = (n: number) => Array.from({ length: n }, (_, i) => `within ${i} days`).join(' ');
/** `n` times the same promise, and `n` distinct ones. */
const reply = (n: number) => `${'明天 '.repeat(n)}${promises(n)}`;
/** Trusted text full of near-matches of both. */
const nearMatches = (kib: number) => evidenceOf(`${'明'.repeat(kib * 512)}${'within'.repeat(kib * 85)}`);

/**
 * Whether the evidence vouches for a reply's time promises costs time linear in the reply and the
 * evidence together, not their product (each promise used to scan every trusted text): the reply and
 * the evidence grow eight times together, and the cost may grow about eight times, never sixty-four.
 */
describe('checking date promises against the evidence is linear in both', () => {
  it('8x the reply and 8x the evidence cost well under 64x', () => {
    const small = cost(reply(400), nearMatches(8));
    const large = cost(reply(3_200), nearMatches(64));
    const ratio = large / Math.max(small, 0.05);
    expect(ratio, `${small.toFixed(2)} ms -> ${large.toFixed(2)} ms`).toBeLessThan(24);
  });

  it('still finds what the evidence vouches for and what it does not', () => {
    const evidence = evidenceOf('Delivery within 3 days, confirmed 2026-06-02');
    const vouched = vouchedDates(evidence, [], []);
    const reply = `${promises(20)} within 3 days, on 6月2日, on 6月3日`;
    const verdicts = [...findDates(reply)].map((d) => [
      reply.slice(d.span.start, d.span.end),
      isVouched(d, reply, vouched),
    ]);
    expect(verdicts.filter(([, ok]) => ok).map(([t]) => t)).toEqual([
      '6月2日',
      'within 3 days',
      'within 3 days',
    ]);
  });
});
