import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import type { PackedEvents } from '../../../src/contract/packed-events.js';
import { storeEvents } from '../../../src/activities/store-events.js';
import { openEvidenceStore, type EvidenceStore } from '../../../src/activities/store/index.js';
import { newRunId, RUN_VERSIONS as VERSIONS } from './store/fixtures.js';

/** The last flush of a run, as one workflow task attempt stamps it (its workflow clock `at`). */
function lastFlush(runId: string, at: string, types = ['eval.completed', 'run.completed']): PackedEvents {
  return {
    run: { runId, threadId: runId, versions: VERSIONS },
    items: types.map((t, i) => ({
      q: 10 + i,
      t,
      at,
      s: null,
      a: null,
      p: 'runner',
      c: 'internal' as const,
      d: { n: i },
    })),
  };
}

const conflict = (err: unknown) => isHarnessError(err, 'store.conflict');

/**
 * The soak's wedged runs (docs/durability.md): a worker died after the last flush (a local activity)
 * committed and before its workflow task completed; the retried task flushed the same events with a
 * later clock, and the store refused them for ever.
 */
describe('storeEvents: the last flush of a retried workflow task', () => {
  let dir: string;
  let store: EvidenceStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'store-events-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a regular flush with different content is a conflict', async () => {
    const runId = newRunId();
    await storeEvents(store, lastFlush(runId, '2026-01-01T00:00:00.000Z'));
    await expect(storeEvents(store, lastFlush(runId, '2026-01-01T00:00:20.000Z'))).rejects.toSatisfy(
      conflict,
    );
  });

  it('a local flush of the same events with a later clock keeps the first record and stores what is missing', async () => {
    const runId = newRunId();
    await storeEvents(store, lastFlush(runId, '2026-01-01T00:00:00.000Z', ['eval.completed']), {
      local: true,
    });
    await storeEvents(store, lastFlush(runId, '2026-01-01T00:00:20.000Z'), { local: true });
    const events = await store.listEvents(runId);
    expect(events.map((e) => [e.seq, e.type, e.occurredAt])).toEqual([
      [10, 'eval.completed', '2026-01-01T00:00:00.000Z'],
      [11, 'run.completed', '2026-01-01T00:00:20.000Z'],
    ]);
  });

  it("a local flush naming another event under a stored sequence replaces the abandoned attempt's events", async () => {
    const runId = newRunId();
    await storeEvents(store, lastFlush(runId, '2026-01-01T00:00:00.000Z'), { local: true });
    await storeEvents(
      store,
      lastFlush(runId, '2026-01-01T00:00:20.000Z', [
        'human.signal_rejected',
        'eval.completed',
        'run.completed',
      ]),
      { local: true },
    );
    const events = await store.listEvents(runId);
    expect(events.map((e) => [e.seq, e.type, e.occurredAt])).toEqual([
      [10, 'human.signal_rejected', '2026-01-01T00:00:20.000Z'],
      [11, 'eval.completed', '2026-01-01T00:00:20.000Z'],
      [12, 'run.completed', '2026-01-01T00:00:20.000Z'],
    ]);
  });
});
