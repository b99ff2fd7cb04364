import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NOT_STARTED } from '../../../src/contract/failure-types.js';
import type { ToolExecutor } from '../../../src/contract/tool.js';
import type { PackedEvents } from '../../../src/contract/packed-events.js';
import type {
  ModelCallActivityInput,
  ToolCallActivityInput,
} from '../../../src/contract/activity-interfaces.js';
import { createModelActivities } from '../../../src/activities/model-activities.js';
import { ModelRouter } from '../../../src/activities/model-router.js';
import { createToolActivities } from '../../../src/activities/tool-activities.js';
import type { ModelProvider, ModelRequest, ModelStreamOptions } from '../../../src/activities/model/types.js';
import { openEvidenceStore, StoreError, type EvidenceStore } from '../../../src/activities/store/index.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { newRunId, RUN_VERSIONS } from './store/fixtures.js';

/** The store methods that write (each is one transaction). */
const WRITES = new Set([
  'recordIntent',
  'recordIntentWithEvents',
  'recordResult',
  'recordResolution',
  'appendMessageGroup',
  'appendMessageGroupWithDeltas',
  'putArtifact',
  'appendEvent',
  'appendEvents',
  'appendModelDeltas',
  'putBlob',
  'putIndexedBlobs',
  'putMemory',
  'forgetMemory',
]);

/**
 * The store with a log of its write calls, a set of methods that fail as an outage would, and what
 * happens right after a method resolves (another attempt's write, say).
 */
function observed(store: EvidenceStore): {
  store: EvidenceStore;
  writes: string[];
  failing: Set<string>;
  after: Map<string, () => Promise<unknown>>;
} {
  const writes: string[] = [];
  const failing = new Set<string>();
  const after = new Map<string, () => Promise<unknown>>();
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (WRITES.has(String(prop))) writes.push(String(prop));
        if (failing.has(String(prop)))
          throw new StoreError('store.unavailable', 'the database is unavailable');
        const out: unknown = await (value as (...a: unknown[]) => unknown).apply(target, args);
        await after.get(String(prop))?.();
        return out;
      };
    },
  });
  return { store: proxy, writes, failing, after };
}

/** A batch of the run's outbox events, as the workflow hands one to an activity. */
function batch(runId: string, firstSeq: number, types: readonly string[]): PackedEvents {
  return {
    run: { runId, threadId: runId, versions: RUN_VERSIONS },
    items: types.map((t, i) => ({
      q: firstSeq + i,
      t,
      at: '2026-01-01T00:00:00.000Z',
      s: null,
      a: null,
      p: 'runner',
      c: 'internal' as const,
      d: { n: i },
    })),
  };
}

/** Streams 20 text deltas (16 make a flush while the stream runs; 4 are left for the answer), then answers. */
class StreamingProvider implements ModelProvider {
  readonly name = 'streaming';
  calls = 0;
  async stream(req: ModelRequest, opts: ModelStreamOptions): ReturnType<ModelProvider['stream']> {
    this.calls += 1;
    for (let i = 0; i < 20; i++) {
      opts.onEvent({ type: 'model.text.delta', callId: req.callId, delta: `w${i} ` });
      if (i === 15) await new Promise((resolve) => setImmediate(resolve));
    }
    return {
      text: 'done',
      toolCalls: [],
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 20 },
      costUsd: 0,
      providerModel: 'streaming',
    };
  }
}

/**
 * One transaction per write an activity must make: the run's events go with the activity's own first
 * write (the request package, the tool intent), a model call's last deltas with its answer.
 */
describe('activities write the run events with their own records', () => {
  let dir: string;
  let store: EvidenceStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'one-write-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seqs = async (runId: string) => (await store.listEvents(runId)).map((e) => e.seq);

  describe('the model activity', () => {
    function modelCall(runId: string, events: PackedEvents): ModelCallActivityInput {
      return {
        runId,
        callSeq: 1,
        purpose: 'decide',
        modelRoute: 'streaming/test',
        newMessages: [{ role: 'user', content: 'begin', trust: 'verified' }],
        toolKeys: [],
        events,
      };
    }

    it('stores events, chunks and package index in one write, the last deltas with the answer', async () => {
      const runId = newRunId('model-one-write');
      const provider = new StreamingProvider();
      const seen = observed(store);
      const activities = createModelActivities({
        registry: new ToolRegistry(),
        store: seen.store,
        models: new ModelRouter().register('streaming/test', provider, 'm'),
      });
      const input = modelCall(runId, batch(runId, 1, ['model.started', 'budget.updated']));
      const got = await new MockActivityEnvironment().run(
        (i: ModelCallActivityInput) => activities.callModel(i),
        input,
      );
      expect(got).toMatchObject({ text: 'done', replayed: false });
      // 16 deltas flushed while streaming, then one write for the answer and the other 4.
      expect(seen.writes).toEqual(['putIndexedBlobs', 'appendModelDeltas', 'appendMessageGroupWithDeltas']);
      expect(await seqs(runId)).toEqual([1, 2]);
      const callId = `${runId}:m1:a1`;
      expect((await store.listModelDeltas(runId, callId)).map((d) => d.index)).toEqual(
        Array.from({ length: 20 }, (_, i) => i),
      );
      expect(await store.listMessageGroups(runId)).toHaveLength(1);

      // The same call again (its completion was lost): the stored answer, and this batch's events.
      seen.writes.length = 0;
      const again = await new MockActivityEnvironment().run(
        (i: ModelCallActivityInput) => activities.callModel(i),
        { ...input, events: batch(runId, 3, ['model.started']) },
      );
      expect(again).toMatchObject({ text: 'done', replayed: true });
      expect(provider.calls).toBe(1);
      expect(seen.writes).toEqual(['appendEvents']);
      expect(await seqs(runId)).toEqual([1, 2, 3]);
    });

    it('another attempt answered first: its answer stands, this attempt keeps its events and deltas', async () => {
      const runId = newRunId('model-first-answer');
      const provider = new StreamingProvider();
      const seen = observed(store);
      const first = {
        text: 'first',
        toolCalls: [],
        stopReason: 'end_turn',
        usage: { inputTokens: 1, outputTokens: 1 },
      };
      // The other attempt stores its answer while this one streams.
      seen.after.set('putIndexedBlobs', () =>
        store.appendMessageGroup(runId, 1, [{ input: [], context: {}, output: first }]),
      );
      const activities = createModelActivities({
        registry: new ToolRegistry(),
        store: seen.store,
        models: new ModelRouter().register('streaming/test', provider, 'm'),
      });
      const got = await new MockActivityEnvironment().run(
        (i: ModelCallActivityInput) => activities.callModel(i),
        modelCall(runId, batch(runId, 1, ['model.started', 'budget.updated'])),
      );
      expect(got).toMatchObject({ text: 'first', replayed: true });
      expect(provider.calls).toBe(1);
      expect(seen.writes).toEqual([
        'putIndexedBlobs',
        'appendModelDeltas',
        'appendMessageGroupWithDeltas',
        'appendModelDeltas',
      ]);
      expect(await seqs(runId)).toEqual([1, 2]);
      expect(await store.listModelDeltas(runId, `${runId}:m1:a1`)).toHaveLength(20);
    });

    it('an attempt whose package cannot be stored stores none of the events (the run sends them again)', async () => {
      const runId = newRunId('model-outage');
      const provider = new StreamingProvider();
      const seen = observed(store);
      seen.failing.add('putIndexedBlobs');
      const activities = createModelActivities({
        registry: new ToolRegistry(),
        store: seen.store,
        models: new ModelRouter().register('streaming/test', provider, 'm'),
      });
      const err = await new MockActivityEnvironment()
        .run(
          (i: ModelCallActivityInput) => activities.callModel(i),
          modelCall(runId, batch(runId, 1, ['model.started'])),
        )
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(provider.calls).toBe(0);
      expect(await seqs(runId)).toEqual([]);
    });
  });

  describe('the tool activity', () => {
    const PARAMETERS = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
      additionalProperties: false,
    } as const;
    let executions = 0;
    const executor: ToolExecutor = {
      execute: () => {
        executions += 1;
        return Promise.resolve({ output: { ok: true } });
      },
    };
    const registry = new ToolRegistry();
    registry.register(
      { name: 'demo.write', version: 'v1', description: 'A write.', parameters: PARAMETERS, effect: 'write' },
      executor,
    );

    function toolCall(runId: string, events: PackedEvents): ToolCallActivityInput {
      return {
        runId,
        seq: 1,
        tool: 'demo.write',
        version: 'v1',
        effect: 'write',
        args: { n: 1 },
        argsDigest: 'sha256:1',
        idempotencyKey: `${runId}/1`,
        events,
      };
    }

    it('stores the events with the intent, then the result: two writes', async () => {
      const runId = newRunId('tool-one-write');
      const seen = observed(store);
      const activities = createToolActivities({ registry, store: seen.store, identity: 'test' });
      const before = executions;
      const input = toolCall(runId, batch(runId, 1, ['tool.authorized', 'tool.started']));
      const got = await new MockActivityEnvironment().run(
        (i: ToolCallActivityInput) => activities.runTool(i),
        input,
      );
      expect(got).toMatchObject({ status: 'succeeded' });
      expect(executions).toBe(before + 1);
      expect(seen.writes).toEqual(['recordIntentWithEvents', 'recordResult']);
      expect(await seqs(runId)).toEqual([1, 2]);

      // Its completion was lost: the same call returns the recorded result and stores this batch.
      seen.writes.length = 0;
      const again = await new MockActivityEnvironment().run(
        (i: ToolCallActivityInput) => activities.runTool(i),
        { ...input, events: batch(runId, 3, ['tool.started']) },
      );
      expect(again).toMatchObject({ status: 'succeeded' });
      expect(executions).toBe(before + 1);
      expect(seen.writes).toEqual(['appendEvents']);
      expect(await seqs(runId)).toEqual([1, 2, 3]);
    });

    it('a write whose intent cannot be recorded did not start and stored none of the events', async () => {
      const runId = newRunId('tool-outage');
      const seen = observed(store);
      seen.failing.add('recordIntentWithEvents');
      const activities = createToolActivities({ registry, store: seen.store, identity: 'test' });
      const before = executions;
      const err = await new MockActivityEnvironment()
        .run(
          (i: ToolCallActivityInput) => activities.runTool(i),
          toolCall(runId, batch(runId, 1, ['tool.authorized'])),
        )
        .catch((e: unknown) => e);
      expect(err instanceof ApplicationFailure ? err.type : err).toBe(TOOL_NOT_STARTED);
      expect(executions).toBe(before);
      expect(await seqs(runId)).toEqual([]);
      expect(await store.getInvocation(runId, 1)).toBeUndefined();
    });
  });
});
