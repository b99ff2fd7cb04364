import { describe, expect, it } from 'vitest';
import { ActiveRunCounts } from '../../../src/service/active-run-counts.js';

/**
 * The start admission's active-run counts (src/service/active-run-counts.ts): one visibility query per
 * key at a time and per second, shared by concurrent starts, plus the starts admitted since it was asked.
 */
describe('active-run counts', () => {
  const rig = () => {
    let now = 1_000;
    const asked: { query: string; answer: (n: number) => void; fail: (e: Error) => void }[] = [];
    const counts = new ActiveRunCounts(
      (query) => new Promise<number>((answer, fail) => asked.push({ query, answer, fail })),
      1_000,
      () => now,
    );
    return { counts, asked, tick: (ms: number) => (now += ms) };
  };

  it('shares one query among concurrent callers of a key and reuses it for a second', async () => {
    const r = rig();
    const all = Array.from({ length: 50 }, () => r.counts.get('acme', 'q-acme'));
    await Promise.resolve();
    expect(r.asked).toHaveLength(1);
    r.asked[0]!.answer(7);
    expect(await Promise.all(all)).toEqual(Array.from({ length: 50 }, () => 7));
    r.tick(999);
    expect(await r.counts.get('acme', 'q-acme')).toBe(7);
    expect(r.asked).toHaveLength(1);
    // Another key has its own query.
    const other = r.counts.get('globex', 'q-globex');
    await Promise.resolve();
    expect(r.asked.map((a) => a.query)).toEqual(['q-acme', 'q-globex']);
    r.asked[1]!.answer(1);
    expect(await other).toBe(1);
  });

  it('adds the starts admitted since the count was asked, until a newer count replaces them', async () => {
    const r = rig();
    const first = r.counts.get('acme', 'q');
    await Promise.resolve();
    r.asked[0]!.answer(3);
    expect(await first).toBe(3);
    r.counts.noteStarted(['acme']);
    r.counts.noteStarted(['acme']);
    expect(await r.counts.get('acme', 'q')).toBe(5);
    r.tick(1_000);
    const fresh = r.counts.get('acme', 'q');
    await Promise.resolve();
    r.counts.noteStarted(['acme']); // admitted while the new count is in flight: may be missing from it
    r.asked[1]!.answer(5);
    expect(await fresh).toBe(6);
  });

  it('rejects every waiter when the query fails, and asks again on the next call', async () => {
    const r = rig();
    const a = r.counts.get('acme', 'q');
    const b = r.counts.get('acme', 'q');
    await Promise.resolve();
    r.asked[0]!.fail(new Error('visibility down'));
    await expect(a).rejects.toThrow('visibility down');
    await expect(b).rejects.toThrow('visibility down');
    const c = r.counts.get('acme', 'q');
    await Promise.resolve();
    expect(r.asked).toHaveLength(2);
    r.asked[1]!.answer(0);
    expect(await c).toBe(0);
  });
});
