import { describe, expect, it } from 'vitest';
import type { CompactModelInputV3 } from '../../../src/contract/activity-interfaces.js';
import {
  compactModelInputV3,
  MODEL_DEFAULTS_V3,
  TOOL_DEFAULTS_V3,
} from '../../../src/contract/compact-step-input-v3.js';
import { modelCallDerivation, toolCallDerivation } from '../../../src/contract/packed-events-by-ref.js';
import { packEventsV3 } from '../../../src/contract/packed-events-v3.js';
import { packEvents, unpackEvents } from '../../../src/contract/packed-events.js';
import type { ModelCallInput, ToolCallInput } from '../../../src/contract/step-io.js';
import { restorePackedEvents } from '../../../src/activities/run-header.js';
import { restoreModelInputV3, restoreToolInputV3 } from '../../../src/activities/step-input-v3.js';
import { storeEvents } from '../../../src/activities/store-events.js';
import { sha256Digest } from '../../../src/activities/digest.js';
import type { EvidenceStore } from '../../../src/activities/store/index.js';
import { refusedAs, useHeaderStores } from '../../support/header-store.js';
import { newRunId } from './store/fixtures.js';
import { PIN, goalStep, toolV3, modelV3, toolV2, modelV2 } from './step-input-v3-fixtures.js';

describe('the third step format (callModelV3, runToolV3)', () => {
  const stores = useHeaderStores('step-v3-');

  it('restores exactly the input and events of the first form, carried header or named', async () => {
    const runId = newRunId();
    const { tool, model } = goalStep(runId, 4, 4);
    for (const stored of [false, true]) {
      const t = await restoreToolInputV3(stores.store, toolV3(tool, stored), runId, sha256Digest);
      const m = await restoreModelInputV3(stores.store, modelV3(model, stored), runId);
      const { events: te, ...tRest } = t;
      const { events: me, ...mRest } = m;
      // The rest of the input is the first form's, field for field.
      const { events: _t, ...tFirst } = tool;
      const { events: _m, ...mFirst } = model;
      expect(tRest).toEqual(tFirst);
      expect(mRest).toEqual(mFirst);
      // The events restore to the first form's (what the store takes), envelope for envelope.
      expect(unpackEvents(await restorePackedEvents(stores.store, te, toolCallDerivation(t)))).toEqual(
        tool.events,
      );
      expect(unpackEvents(await restorePackedEvents(stores.store, me, modelCallDerivation(m)))).toEqual(
        model.events,
      );
      expect(unpackEvents(packEvents(tool.events))).toEqual(tool.events);
      // And to what the second format restores from its own input.
      const v2 = toolV2(tool, stored);
      expect(await restorePackedEvents(stores.store, v2.events, toolCallDerivation(v2))).toEqual(
        packEvents(tool.events),
      );
      expect(
        await restorePackedEvents(stores.store, modelV2(model, stored).events, modelCallDerivation(model)),
      ).toEqual(packEvents(model.events));
    }
  });

  it('is smaller than the second format by what a goal step repeats', () => {
    const runId = newRunId();
    const { tool, model } = goalStep(runId, 4, 4);
    const size = (v: unknown) => JSON.stringify(v).length;
    const v2 = size(toolV2(tool, true)) + size(modelV2(model, true));
    const v3 = size(toolV3(tool, true)) + size(modelV3(model, true));
    expect(v2 - v3).toBeGreaterThan(600);
    // Everything the step repeats is left out: no flags, pin, ids or default data.
    const t = toolV3(tool, true);
    for (const k of ['configPin', 'recordFailedAttempts', 'workerRefusal', 'definitionDigest', 'off'])
      expect(t).not.toHaveProperty(k);
    const m0 = modelV3(model, true);
    for (const k of [
      'configPin',
      'invalidToolCalls',
      'contextOrder',
      'workerRefusal',
      'purpose',
      'modelRoute',
      'toolKeys',
      'off',
    ])
      expect(m0).not.toHaveProperty(k);
    expect(t.events.items.map((i) => Object.keys(i).sort())).toEqual([
      ['at', 'q', 't', 'x'],
      ['t', 'x'],
      ['t', 'x'],
      ['t'],
    ]);
    expect(t.events.items[0]?.x).toEqual({
      callSeq: 4,
      usage: { inputTokens: 120, outputTokens: 8 },
      costUsd: 0,
      context: 'sha256:' + 'e'.repeat(64),
    });
    expect(t.events.items[1]?.x).toEqual({ proposalId: ':m4:a1_tc0' });
    expect(t.events.items[2]?.x).toEqual({ reasonCodes: ['policy.allow_all'] });
    const m = modelV3(model, true);
    expect(m.events.items.map((i) => Object.keys(i).sort())).toEqual([['at', 'q', 't', 'x'], ['t']]);
  });

  it('keeps what is not a default, and restores it', async () => {
    const runId = newRunId();
    const { tool, model } = goalStep(runId, 2, 2);
    const [completed, proposed, decided, authorized] = tool.events;
    const odd: ToolCallInput = {
      ...tool,
      recordFailedAttempts: undefined,
      workerRefusal: undefined,
      configPin: undefined,
      attempt: 2,
      events: [
        // A replayed answer with another package, no step ids; a proposal id of another shape; a denial
        // under a bundle's rules; a write's second attempt.
        {
          ...completed!,
          stepId: null,
          attemptId: null,
          data: { ...completed!.data, replayed: true, context: { packageId: 'p-1', digest: 'sha256:1' } },
        },
        { ...proposed!, data: { ...proposed!.data, proposalId: 'call_abc' } },
        {
          ...decided!,
          data: {
            ...decided!.data,
            decision: 'deny',
            obligations: ['confirm.user.v2'],
            rules: { source: 'bundle', bundle: 'b@v2' },
          },
        },
        { ...authorized!, attemptId: 'tool-2#2' },
      ],
    };
    const { recordFailedAttempts: _r, workerRefusal: _w, configPin: _c, ...plain } = odd;
    const packed = toolV3(odd, false);
    expect(packed.off).toEqual(['recordFailedAttempts', 'workerRefusal', 'configPin']);
    const t = await restoreToolInputV3(stores.store, packed, runId, sha256Digest);
    const { events: te, ...rest } = t;
    const { events: _e, ...plainRest } = plain;
    expect(rest).toEqual(plainRest);
    expect(unpackEvents(await restorePackedEvents(stores.store, te, toolCallDerivation(t)))).toEqual(
      odd.events,
    );
    // A model call of a run without the flags and with another config pin than its header's.
    const otherPin = { digest: 'sha256:' + 'f'.repeat(64), modelRoute: 'scripted/other' };
    const flagless: ModelCallInput = {
      ...model,
      invalidToolCalls: undefined,
      contextOrder: 'priority',
      workerRefusal: undefined,
      configPin: otherPin,
    };
    const m = modelV3(flagless, false);
    expect(m).toMatchObject({ off: ['invalidToolCalls', 'workerRefusal'], configPin: otherPin });
    const restored = await restoreModelInputV3(stores.store, m, runId);
    expect(restored).not.toHaveProperty('invalidToolCalls');
    expect(restored).not.toHaveProperty('workerRefusal');
    expect(restored).toMatchObject({ contextOrder: 'priority', configPin: otherPin });
  });

  it('a run without a config pin or definition pins has no such defaults, and names none off', async () => {
    const runId = newRunId();
    const { tool, model } = goalStep(runId, 1, 1);
    const { configPin: _p, definitionDigest: _d, ...bare } = tool;
    const t = toolV3(bare, false, {});
    expect(t).not.toHaveProperty('off');
    expect(t.events.run).not.toHaveProperty('calls');
    const restored = await restoreToolInputV3(stores.store, t, runId, sha256Digest);
    expect(restored).not.toHaveProperty('configPin');
    expect(restored).not.toHaveProperty('definitionDigest');
    const { configPin: _q, ...unpinned } = model;
    const m = modelV3(unpinned, false, {});
    // The tool keys travel: the header names no tools.
    expect(m).toMatchObject({ toolKeys: ['bench.noop@v1'] });
    expect(m).not.toHaveProperty('off');
    expect(await restoreModelInputV3(stores.store, m, runId)).not.toHaveProperty('configPin');
  });

  it('an empty batch names no header: the input keeps its config pin', async () => {
    const runId = newRunId();
    const { model } = goalStep(runId, 1, 1);
    const empty = { ...model, events: [] };
    const events = packEventsV3([], { stored: () => false });
    const m = compactModelInputV3({ ...empty, events }, runId, undefined) as CompactModelInputV3;
    expect(m).toMatchObject({ configPin: PIN, modelRoute: 'scripted/bench', toolKeys: ['bench.noop@v1'] });
    const restored = await restoreModelInputV3(stores.store, m, runId);
    expect(restored.configPin).toEqual(PIN);
    expect(restored.events).toEqual({ header: '', items: [] });
  });

  it('refuses an input it cannot restore, non-retryably, and stores nothing', async () => {
    const runId = newRunId();
    const { tool, model } = goalStep(runId, 3, 3);
    const carried = toolV3(tool, false);
    const ref = `blob://${carried.events.header}`;
    const absent = (s: EvidenceStore) => s.getBlob(ref).catch(() => 'absent');
    // A header that does not hash to its reference, or names another run.
    const forged = {
      ...carried,
      events: { ...carried.events, run: { ...carried.events.run!, threadId: 'x' } },
    };
    await expect(restoreToolInputV3(stores.other, forged, runId, sha256Digest)).rejects.toSatisfy(
      refusedAs('events.header_mismatch'),
    );
    await expect(restoreToolInputV3(stores.other, carried, 'another-run', sha256Digest)).rejects.toSatisfy(
      refusedAs('events.header_mismatch'),
    );
    // A named header the store does not hold.
    await expect(restoreModelInputV3(stores.other, modelV3(model, true), runId)).rejects.toSatisfy(
      refusedAs('events.header_missing'),
    );
    // An item without a time, ids of the wrong shape, data that is not an object.
    const items = carried.events.items;
    const bad = [
      [{ ...items[0]!, at: undefined }, ...items.slice(1)],
      [{ ...items[0]!, s: 7 }, ...items.slice(1)],
      [{ ...items[0]!, x: 'data' }, ...items.slice(1)],
    ] as unknown as (typeof items)[];
    for (const b of bad)
      await expect(
        restoreToolInputV3(
          stores.other,
          { ...carried, events: { ...carried.events, items: b } },
          runId,
          sha256Digest,
        ),
      ).rejects.toSatisfy(refusedAs('events.invalid_batch'));
    // Defaults it says it leaves out that have none, or that it has.
    for (const off of [['args'], ['workerRefusal']])
      await expect(
        restoreToolInputV3(stores.other, { ...carried, workerRefusal: true, off }, runId, sha256Digest),
      ).rejects.toSatisfy(refusedAs('step.invalid_input'));
    expect(await absent(stores.other)).toBe('absent');
    expect(await stores.other.listEvents(runId)).toEqual([]);
    // The same input restores and stores once it is whole.
    const restored = await restoreToolInputV3(stores.other, carried, runId, sha256Digest);
    await storeEvents(stores.other, restored.events, { derive: toolCallDerivation(restored), runId });
    expect((await stores.other.listEvents(runId)).map((e) => e.type)).toEqual(tool.events.map((e) => e.type));
  });

  it('the format is frozen: its flags change only with new activity names', () => {
    expect(MODEL_DEFAULTS_V3).toEqual({
      invalidToolCalls: 'report',
      contextOrder: 'priority',
      workerRefusal: true,
      purpose: 'decide',
    });
    expect(TOOL_DEFAULTS_V3).toEqual({ recordFailedAttempts: true, workerRefusal: true });
    // One goal step's batches, byte for byte (a change to the event defaults shows here).
    const runId = 'run-frozen';
    const { tool, model } = goalStep(runId, 4, 4);
    expect(JSON.stringify(toolV3(tool, true))).toBe(
      '{"seq":4,"tool":"bench.noop","version":"v1","effect":"read","args":{"step":4},"events":{"header":"sha256:a846abfd1b94ba45161d21a5e8910a40e8ecdd998f8d6b46e003819e5d68f3a6","items":[{"q":10,"t":"model.completed","at":"2026-12-05T22:00:00.000Z","x":{"callSeq":4,"usage":{"inputTokens":120,"outputTokens":8},"costUsd":0,"context":"sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"}},{"t":"tool.proposed","x":{"proposalId":":m4:a1_tc0"}},{"t":"policy.decided","x":{"reasonCodes":["policy.allow_all"]}},{"t":"tool.authorized"}]}}',
    );
    expect(JSON.stringify(modelV3(model, true))).toBe(
      '{"callSeq":5,"newMessages":[{"role":"tool","toolCallId":"run-frozen:m4:a1_tc0","content":"","trust":"untrusted","resultOf":4}],"events":{"header":"sha256:a846abfd1b94ba45161d21a5e8910a40e8ecdd998f8d6b46e003819e5d68f3a6","items":[{"q":14,"t":"tool.completed","at":"2026-12-05T22:00:00.000Z","x":{"seq":4,"tool":"bench.noop","version":"v1","artifactIds":[]}},{"t":"model.started"}]}}',
    );
  });
});
