import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/core/runner/agent-event.js';
import {
  headerRef,
  packEvents,
  packEventsByRef,
  type PackedEventsByRef,
} from '../../../src/core/runner/packed-events.js';
import { restorePackedEvents } from '../../../src/worker/activities/run-header.js';
import { storeEvents } from '../../../src/worker/activities/store-events.js';
import { openEvidenceStore, type EvidenceStore } from '../../../src/worker/store/index.js';
import { newRunId } from '../store/fixtures.js';

const VERSIONS = {
  profile: 'refund.graph@v1',
  policy: 'refund.rules@v1',
  toolRegistryDigest: 'sha256:0',
  modelRoute: 'scripted/refund',
  configDigest: 'sha256:0',
};

/** A step's events as the runner makes them: one clock per workflow task, a step id on some. */
function events(runId: string, from: number, n: number, traceId = runId): AgentEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    schemaVersion: '1' as const,
    eventId: `${runId}:${from + i}`,
    traceId,
    runId,
    threadId: `thread-${runId}`,
    stepId: i % 2 === 0 ? null : `s${from + i}`,
    attemptId: i === 1 ? 'a1' : null,
    sequence: from + i,
    type: `test.e${i}`,
    occurredAt: i < 2 ? '2026-12-03T05:00:00.000Z' : '2026-12-03T05:00:01.000Z',
    producer: 'runner',
    data: { i, text: 'x'.repeat(i) },
    dataClassification: 'internal' as const,
    versions: VERSIONS,
  }));
}

const refusedAs = (type: string) => (err: unknown) =>
  err instanceof ApplicationFailure && err.type === type && err.nonRetryable === true;

describe('batches that name the run header by reference (runToolV2, callModelV2)', () => {
  let dir: string;
  let store: EvidenceStore;
  let other: EvidenceStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-header-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
    other = await openEvidenceStore(`sqlite:${join(dir, 'other.db')}`);
  });
  afterAll(async () => {
    await store.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores exactly the batch packed with its header, whether it carries the header or names it', async () => {
    const runId = newRunId();
    for (const traceId of [runId, 'trace-1']) {
      const batch = events(runId, 1, 5, traceId);
      const carried = packEventsByRef(batch, headerRef, () => false);
      expect(carried.run).toBeDefined();
      expect(await restorePackedEvents(store, carried)).toEqual(packEvents(batch));
      const named = packEventsByRef(batch, headerRef, () => true);
      expect(named.run).toBeUndefined();
      expect(await restorePackedEvents(store, named)).toEqual(packEvents(batch));
    }
  });

  it('is smaller: no header once stored, no repeated clock, no null step or attempt', () => {
    const runId = newRunId();
    const batch = events(runId, 1, 6);
    const full = JSON.stringify(packEvents(batch)).length;
    const named = JSON.stringify(packEventsByRef(batch, headerRef, () => true)).length;
    expect(full - named).toBeGreaterThan(JSON.stringify(packEvents(batch).run).length);
  });

  it('stores the events of a named header read from the store by another worker process', async () => {
    const runId = newRunId();
    const first = events(runId, 1, 3);
    await storeEvents(
      store,
      packEventsByRef(first, headerRef, () => false),
    );
    // A process that never saw this header (the other store's memory is empty for it): the blob is in the store.
    const header = headerRef(packEvents(first).run!);
    expect(await store.getBlob(header)).toEqual(packEvents(first).run);
    await storeEvents(
      store,
      packEventsByRef(events(runId, 4, 2), headerRef, () => true),
    );
    const stored = await store.listEvents(runId);
    expect(stored.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(stored.every((e) => e.envelope.threadId === `thread-${runId}`)).toBe(true);
  });

  it('refuses a named header the store does not hold, and stores nothing', async () => {
    const runId = newRunId();
    const batch = packEventsByRef(events(runId, 1, 2), headerRef, () => true);
    await expect(storeEvents(other, batch)).rejects.toSatisfy(refusedAs('events.header_missing'));
    expect(await other.listEvents(runId)).toEqual([]);
  });

  it('refuses a header that does not match its reference (forged or corrupted), and stores nothing', async () => {
    const runId = newRunId();
    const batch = packEventsByRef(events(runId, 1, 2), headerRef, () => false);
    const forged: PackedEventsByRef = { ...batch, run: { ...batch.run!, threadId: 'someone-else' } };
    await expect(storeEvents(other, forged)).rejects.toSatisfy(refusedAs('events.header_mismatch'));
    expect(await other.listEvents(runId)).toEqual([]);
    expect(await other.getBlob(forged.header).catch(() => 'absent')).toBe('absent');
  });

  it('refuses a blob that is not a header, and a batch whose first item has no time', async () => {
    const runId = newRunId();
    const { ref } = await other.putBlob({ items: [] });
    const batch = packEventsByRef(events(runId, 1, 2), headerRef, () => true);
    await expect(restorePackedEvents(other, { ...batch, header: ref })).rejects.toSatisfy(
      refusedAs('events.header_invalid'),
    );
    const carried = packEventsByRef(events(runId, 1, 2), headerRef, () => false);
    const [head, ...rest] = carried.items;
    const { at: _at, ...timeless } = head!;
    await expect(restorePackedEvents(other, { ...carried, items: [timeless, ...rest] })).rejects.toSatisfy(
      refusedAs('events.invalid_batch'),
    );
  });

  it('an empty batch names no header and stores nothing', async () => {
    const empty = packEventsByRef([], headerRef, () => false);
    expect(empty).toEqual({ header: '', items: [] });
    expect((await restorePackedEvents(other, empty)).items).toEqual([]);
  });
});
