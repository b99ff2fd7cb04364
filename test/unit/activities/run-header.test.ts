import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/contract/agent-event.js';
import {
  headerDigest,
  itemDefaults,
  modelCallDerivation,
  packEventsByRef,
  toolCallDerivation,
  type PackedEventsByRef,
} from '../../../src/contract/packed-events-by-ref.js';
import { packEvents } from '../../../src/contract/packed-events.js';
import { restorePackedEvents } from '../../../src/activities/run-header.js';
import { storeEvents } from '../../../src/activities/store-events.js';
import { openEvidenceStore } from '../../../src/activities/store/index.js';
import { refusedAs, useHeaderStores } from '../../support/header-store.js';
import { newRunId, RUN_VERSIONS as VERSIONS } from './store/fixtures.js';

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

describe('batches that name the run header by reference (runToolV2, callModelV2)', () => {
  const stores = useHeaderStores('run-header-');

  it('restores exactly the batch packed with its header, whether it carries the header or names it', async () => {
    const runId = newRunId();
    for (const traceId of [runId, 'trace-1']) {
      const batch = events(runId, 1, 5, traceId);
      const carried = packEventsByRef(batch, { stored: () => false });
      expect(carried.run).toBeDefined();
      expect(await restorePackedEvents(stores.store, carried)).toEqual(packEvents(batch));
      const named = packEventsByRef(batch, { stored: () => true });
      expect(named.run).toBeUndefined();
      expect(await restorePackedEvents(stores.store, named)).toEqual(packEvents(batch));
    }
  });

  it('is smaller: no header once stored, no repeated clock, no null step or attempt', () => {
    const runId = newRunId();
    const batch = events(runId, 1, 6);
    const full = JSON.stringify(packEvents(batch)).length;
    const named = JSON.stringify(packEventsByRef(batch, { stored: () => true })).length;
    expect(full - named).toBeGreaterThan(JSON.stringify(packEvents(batch).run).length);
  });

  it('stores the events of a named header read from the store by another worker process', async () => {
    const runId = newRunId();
    const first = events(runId, 1, 3);
    await storeEvents(stores.store, packEventsByRef(first, { stored: () => false }));
    // A process that never saw this header (the other store's memory is empty for it): the blob is in the store.
    const header = headerDigest(packEvents(first).run!);
    expect(await stores.store.getBlob(`blob://${header}`)).toEqual(packEvents(first).run);
    await storeEvents(stores.store, packEventsByRef(events(runId, 4, 2), { stored: () => true }));
    const stored = await stores.store.listEvents(runId);
    expect(stored.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(stored.every((e) => e.envelope.threadId === `thread-${runId}`)).toBe(true);
  });

  it('refuses a named header the store does not hold, and stores nothing', async () => {
    const runId = newRunId();
    const batch = packEventsByRef(events(runId, 1, 2), { stored: () => true });
    await expect(storeEvents(stores.other, batch)).rejects.toSatisfy(refusedAs('events.header_missing'));
    expect(await stores.other.listEvents(runId)).toEqual([]);
  });

  it('refuses a header that does not match its reference (forged or corrupted), and stores nothing', async () => {
    const runId = newRunId();
    const batch = packEventsByRef(events(runId, 1, 2), { stored: () => false });
    const forged: PackedEventsByRef = { ...batch, run: { ...batch.run!, threadId: 'someone-else' } };
    await expect(storeEvents(stores.other, forged)).rejects.toSatisfy(refusedAs('events.header_mismatch'));
    expect(await stores.other.listEvents(runId)).toEqual([]);
    expect(await stores.other.getBlob(`blob://${forged.header}`).catch(() => 'absent')).toBe('absent');
  });

  it('refuses a blob that is not a header, and a batch whose first item has no time', async () => {
    const runId = newRunId();
    const { digest } = await stores.other.putBlob({ items: [] });
    const batch = packEventsByRef(events(runId, 1, 2), { stored: () => true });
    await expect(restorePackedEvents(stores.other, { ...batch, header: digest })).rejects.toSatisfy(
      refusedAs('events.header_invalid'),
    );
    const carried = packEventsByRef(events(runId, 1, 2), { stored: () => false });
    const [head, ...rest] = carried.items;
    const { at: _at, ...timeless } = head!;
    await expect(
      restorePackedEvents(stores.other, { ...carried, items: [timeless, ...rest] }),
    ).rejects.toSatisfy(refusedAs('events.invalid_batch'));
  });

  it('an empty batch names no header and stores nothing', async () => {
    const empty = packEventsByRef([], { stored: () => false });
    expect(empty).toEqual({ header: '', items: [] });
    expect((await restorePackedEvents(stores.other, empty)).items).toEqual([]);
  });

  it('leaves out the data of model.started and tool.authorized when the activity input says the same, and restores it', async () => {
    const runId = newRunId();
    const call = { callSeq: 3, purpose: 'decide', modelRoute: 'scripted/refund', toolKeys: ['order.get@v1'] };
    const tool = { seq: 2, tool: 'order.get', version: 'v1', effect: 'read', argsDigest: 'sha256:ab' };
    const [a, b] = events(runId, 1, 2);
    const started = { ...a!, type: 'model.started', producer: 'model_gateway', data: { ...call } };
    const authorized = { ...b!, type: 'tool.authorized', producer: 'tool_pipeline', data: { ...tool } };
    for (const [e, derive] of [
      [started, modelCallDerivation(call)],
      [authorized, toolCallDerivation(tool)],
    ] as const) {
      const packed = packEventsByRef([e], { stored: () => false, derive });
      expect(packed.items[0]).not.toHaveProperty('d');
      expect(packed.items[0]).not.toHaveProperty('p');
      expect(await restorePackedEvents(stores.store, packed, derive)).toEqual(packEvents([e]));
      // Without the derivation (an activity that cannot rebuild it) the batch is refused, not stored short.
      await expect(restorePackedEvents(stores.store, packed)).rejects.toSatisfy(
        refusedAs('events.invalid_batch'),
      );
    }
    // A field the input does not name travels alone; data that differs from the input travels as it is.
    const other = { ...started, data: { ...call, provider: 'scripted' } };
    const packed = packEventsByRef([other], { stored: () => false, derive: modelCallDerivation(call) });
    expect(packed.items[0]).toMatchObject({ x: { provider: 'scripted' } });
    expect(await restorePackedEvents(stores.store, packed, modelCallDerivation(call))).toEqual(
      packEvents([other]),
    );
    const rerouted = { ...started, data: { ...call, modelRoute: 'scripted/fallback' } };
    const sent = packEventsByRef([rerouted], { stored: () => false, derive: modelCallDerivation(call) });
    expect(sent.items[0]?.d).toEqual(rerouted.data);
    expect(await restorePackedEvents(stores.store, packed, modelCallDerivation(call))).toEqual(
      packEvents([other]),
    );
  });

  it('leaves out the fields of policy.decided and tool.proposed the tool input names, and keeps the rest', async () => {
    const runId = newRunId();
    const tool = { seq: 2, tool: 'order.get', version: 'v1', effect: 'read', argsDigest: 'sha256:ab' };
    const [a, b] = events(runId, 1, 2);
    const decided = {
      ...a!,
      type: 'policy.decided',
      producer: 'policy',
      data: {
        stage: 'dispatch',
        tool: 'order.get',
        version: 'v1',
        argsDigest: 'sha256:ab',
        decision: 'allow',
      },
    };
    const presented = {
      ...b!,
      type: 'policy.decided',
      producer: 'policy',
      data: { stage: 'presentation', tool: 'order.get', version: 'v2' },
    };
    const derive = toolCallDerivation(tool);
    const packed = packEventsByRef([decided, presented], { stored: () => false, derive });
    expect(packed.items[0]).toMatchObject({ x: { stage: 'dispatch', decision: 'allow' } });
    expect(packed.items[0]).not.toHaveProperty('d');
    // Another version than the input's: the data travels as it is.
    expect(packed.items[1]?.d).toEqual(presented.data);
    expect(await restorePackedEvents(stores.store, packed, derive)).toEqual(packEvents([decided, presented]));
  });

  it('refuses a batch whose header names another run than the activity serves, and stores nothing', async () => {
    const runId = newRunId();
    const batch = packEventsByRef(events(runId, 1, 2), { stored: () => false });
    await expect(storeEvents(stores.other, batch, { runId: 'another-run' })).rejects.toSatisfy(
      refusedAs('events.header_mismatch'),
    );
    expect(await stores.other.listEvents(runId)).toEqual([]);
    expect(await stores.other.getBlob(`blob://${batch.header}`).catch(() => 'absent')).toBe('absent');
  });

  it('stores a carried header only for a batch that restores', async () => {
    const runId = newRunId();
    const carried = packEventsByRef(events(runId, 1, 2), { stored: () => false });
    const [head, ...rest] = carried.items;
    const { at: _at, ...timeless } = head!;
    await expect(storeEvents(stores.other, { ...carried, items: [timeless, ...rest] })).rejects.toSatisfy(
      refusedAs('events.invalid_batch'),
    );
    expect(await stores.other.getBlob(`blob://${carried.header}`).catch(() => 'absent')).toBe('absent');
  });

  it('stores a carried header again in a store that lost it, even when this process knows it', async () => {
    const runId = newRunId();
    const first = packEventsByRef(events(runId, 1, 2), { stored: () => false });
    await storeEvents(stores.store, first);
    const dir2 = mkdtempSync(join(tmpdir(), 'run-header-restored-'));
    const restored = await openEvidenceStore(`sqlite:${join(dir2, 'evidence.db')}`);
    try {
      // The same header carried again into another store: it lands there too.
      await storeEvents(restored, packEventsByRef(events(runId, 1, 2), { stored: () => false }));
      expect(await restored.getBlob(`blob://${first.header}`)).toEqual(first.run);
    } finally {
      await restored.close();
      rmSync(dir2, { recursive: true, force: true });
    }
  });

  it('the format is frozen: its defaults and derivations change only with new activity names', () => {
    // A change here changes what a batch leaves out, which a worker of the previous release would
    // complete differently: it needs a third form under new names, not an edit.
    expect(itemDefaults()).toEqual({
      'run.created': ['runner', 'internal'],
      'run.started': ['runner', 'internal'],
      'state.transitioned': ['runner', 'public'],
      'checkpoint.saved': ['runner', 'public'],
      'step.started': ['runner', 'public'],
      'step.completed': ['runner', 'public'],
      'guardrail.input_checked': ['guardrail', 'internal'],
      'model.started': ['model_gateway', 'internal'],
      'model.completed': ['model_gateway', 'internal'],
      'tool.proposed': ['tool_pipeline', 'internal'],
      'policy.decided': ['policy', 'internal'],
      'tool.authorized': ['tool_pipeline', 'internal'],
      'tool.completed': ['tool_pipeline', 'internal'],
    });
    const model = modelCallDerivation({ callSeq: 1, purpose: 'decide', modelRoute: 'r', toolKeys: ['t@v1'] });
    expect(['model.started', 'tool.authorized', 'policy.decided', 'tool.proposed', 'x'].map(model)).toEqual([
      { callSeq: 1, purpose: 'decide', modelRoute: 'r', toolKeys: ['t@v1'] },
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const tool = toolCallDerivation({
      seq: 2,
      tool: 't',
      version: 'v1',
      effect: 'read',
      argsDigest: 'sha256:a',
    });
    expect(['model.started', 'tool.authorized', 'policy.decided', 'tool.proposed', 'x'].map(tool)).toEqual([
      undefined,
      { seq: 2, tool: 't', version: 'v1', effect: 'read', argsDigest: 'sha256:a' },
      { tool: 't', version: 'v1', argsDigest: 'sha256:a' },
      { tool: 't', version: 'v1' },
      undefined,
    ]);
  });
});
