import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_EVENTS } from '../../../src/contract/packed-events.js';
import type { ModelDecision, ModelMessageInput } from '../../../src/workflows/runner/ports.js';
import type { ModelCallActivityInput } from '../../../src/contract/activity-interfaces.js';
import { createModelActivities } from '../../../src/activities/model-activities.js';
import { ModelRouter } from '../../../src/activities/model-router.js';
import { TranscriptCache } from '../../../src/activities/transcript-cache.js';
import type { ModelMessage, ModelProvider, ModelRequest } from '../../../src/activities/model/types.js';
import { openEvidenceStore, type EvidenceStore } from '../../../src/activities/store/index.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { intent, newRunId, result } from './store/fixtures.js';

/** Answers every call with the same text and keeps the messages each request carried. */
class RecordingProvider implements ModelProvider {
  readonly name = 'recording';
  readonly requests: ModelMessage[][] = [];

  stream(req: ModelRequest): ReturnType<ModelProvider['stream']> {
    this.requests.push([...req.messages]);
    return Promise.resolve({
      text: `answer ${this.requests.length}`,
      toolCalls: [],
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0,
      providerModel: 'recording',
    });
  }
}

type ModelActivitiesUnderTest = ReturnType<typeof createModelActivities>;

/** Call `callSeq` of `runId` with `newMessages`, as the workflow would. */
function callModel(
  activities: ModelActivitiesUnderTest,
  runId: string,
  callSeq: number,
  newMessages: readonly ModelMessageInput[],
): Promise<ModelDecision> {
  const input: ModelCallActivityInput = {
    runId,
    callSeq,
    purpose: 'decide',
    modelRoute: 'recording/test',
    newMessages,
    toolKeys: [],
    events: NO_EVENTS,
  };
  return new MockActivityEnvironment().run((i: ModelCallActivityInput) => activities.callModel(i), input);
}

/** The message of call k > 1: the result of invocation k - 1, by reference. */
const resultMessage = (k: number): ModelMessageInput[] => [
  { role: 'tool', content: '', toolCallId: `c${k - 1}`, resultOf: k - 1 },
];

/** Counts the store reads the model activity makes. */
function counting(store: EvidenceStore): { store: EvidenceStore; groups: number[]; invocations: number[] } {
  const seen = { groups: [] as number[], invocations: [] as number[] };
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop === 'getInvocation') seen.invocations.push(args[1] as number);
        if (prop === 'listMessageGroups')
          void (out as Promise<unknown[]>).then((g) => seen.groups.push(g.length));
        return out;
      };
    },
  });
  return { store: proxy, ...seen };
}

describe('the model activity reads only what is new since its previous call', () => {
  let dir: string;
  let store: EvidenceStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'model-transcript-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Calls 1..n, each answering the previous one's tool result (stored as invocation k). */
  async function converse(runId: string, calls: number, activities: ModelActivitiesUnderTest): Promise<void> {
    for (let k = 1; k <= calls; k++) {
      if (k > 1) await storeResult(runId, k - 1);
      await callModel(
        activities,
        runId,
        k,
        k === 1 ? [{ role: 'user', content: 'begin', trust: 'verified' }] : resultMessage(k),
      );
    }
  }

  async function storeResult(runId: string, seq: number): Promise<void> {
    await store.recordIntent(intent(runId, seq, { effect: 'read' }));
    await store.recordResult(result(runId, seq, { output: { n: seq } }), []);
  }

  it('gives the model the same transcript as a full read, reading only the groups stored since', async () => {
    const runId = newRunId('transcript');
    const provider = new RecordingProvider();
    const models = new ModelRouter().register('recording/test', provider, 'm');
    const reads = counting(store);
    const cache = new TranscriptCache();
    const activities = createModelActivities({
      registry: new ToolRegistry(),
      store: reads.store,
      models,
      transcripts: cache,
    });
    await converse(runId, 12, activities);
    // Each call reads the groups stored since the previous one (none for the first) ...
    expect(reads.groups).toEqual([0, ...Array<number>(11).fill(1)]);
    // ... and resolves each of the 11 tool results twice in all: as the new message, then in its
    // stored group at the next call (the last one's next call has not come).
    expect(reads.invocations).toHaveLength(2 * 11 - 1);

    // A worker without a cache (or a cold one) reads everything and sends the same messages.
    const cold = new RecordingProvider();
    const fresh = createModelActivities({
      registry: new ToolRegistry(),
      store,
      models: new ModelRouter().register('recording/test', cold, 'm'),
    });
    const last = provider.requests.at(-1)!;
    await storeResult(runId, 12);
    await callModel(fresh, runId, 13, resultMessage(13));
    // The data notice (a system message: no call had system instructions), then 11 turns and the new result.
    expect(last.length).toBe(1 + 11 * 2 + 1);
    expect(last[0]).toMatchObject({ role: 'system' });
    expect(cold.requests[0]?.slice(0, last.length - 1)).toEqual(last.slice(0, -1));
  });

  it('answers a call already answered from the store, cache or not', async () => {
    const runId = newRunId('transcript');
    const provider = new RecordingProvider();
    const activities = createModelActivities({
      registry: new ToolRegistry(),
      store,
      models: new ModelRouter().register('recording/test', provider, 'm'),
    });
    await converse(runId, 3, activities);
    const again = await callModel(activities, runId, 2, resultMessage(2));
    expect(again).toMatchObject({ text: 'answer 2', replayed: true });
    expect(provider.requests).toHaveLength(3);
  });
});

describe('the transcript cache', () => {
  const transcript = (throughSeq: number, n: number) => ({
    throughSeq,
    groups: Array.from({ length: n }, (_, k) => ({
      seq: k + 1,
      input: [{ role: 'user' as const, content: `m${k}` }],
      output: { text: '', toolCalls: [] },
    })),
    summaries: new Map<string, string>(),
  });

  it('keeps at most its number of runs, least recently used out first', () => {
    const cache = new TranscriptCache({ runs: 2, groups: 100 });
    cache.set('a', transcript(1, 1));
    cache.set('b', transcript(1, 1));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', transcript(1, 1));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.throughSeq).toBe(1);
    expect(cache.size).toBe(2);
  });

  it('keeps at most its number of message groups, and never a transcript larger than that', () => {
    const cache = new TranscriptCache({ runs: 10, groups: 100 });
    cache.set('a', transcript(5, 60));
    cache.set('b', transcript(5, 30));
    cache.set('a', transcript(6, 70));
    expect(cache.get('b')?.throughSeq).toBe(5);
    expect(cache.get('a')?.throughSeq).toBe(6);
    cache.set('c', transcript(1, 20));
    expect(cache.get('b')).toBeUndefined();
    cache.set('big', transcript(9, 101));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
  });
});

/** Holds its answer until `release()`; answers `text`. */
class HeldProvider implements ModelProvider {
  readonly name = 'held';
  private open!: () => void;
  readonly gate = new Promise<void>((r) => (this.open = r));
  constructor(private readonly text: string) {}
  release(): void {
    this.open();
  }
  async stream(): ReturnType<ModelProvider['stream']> {
    await this.gate;
    return {
      text: this.text,
      toolCalls: [],
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0,
      providerModel: 'held',
    };
  }
}

describe('two attempts of one model call on two workers', () => {
  it('the answer stored first stands: the later attempt returns it, replayed, and does not fail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-attempts-'));
    const store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
    try {
      const runId = newRunId('attempts');
      const worker = (provider: ModelProvider) => {
        const models = new ModelRouter().register('recording/test', provider, 'm');
        return createModelActivities({ registry: new ToolRegistry(), store, models });
      };
      const slow = new HeldProvider('the slow attempt');
      const fast = new HeldProvider('the fast attempt');
      const begin: ModelMessageInput[] = [{ role: 'user', content: 'begin', trust: 'verified' }];
      // The first attempt is still running (it timed out for Temporal) when the retry starts elsewhere.
      const first = callModel(worker(slow), runId, 1, begin);
      await new Promise((r) => setTimeout(r, 20));
      const retry = callModel(worker(fast), runId, 1, begin);
      fast.release();
      const retried = await retry;
      expect(retried).toMatchObject({ text: 'the fast attempt', replayed: false });
      slow.release();
      // Its package differs (another build time): the store keeps the first record, and this attempt
      // answers with it instead of failing the call.
      expect(await first).toMatchObject({ text: 'the fast attempt', replayed: true });
      const groups = await store.listMessageGroups(runId);
      expect(groups).toHaveLength(1);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
