import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { benchBudget } from '../../bench/lib/arms.js';
import {
  benchModelRoute,
  benchModelRoutes,
  writeScriptedRoutesFile,
} from '../../bench/lib/scripted-routes-file.js';
import { BENCH_TASK_MESSAGE, benchScript } from '../../apps/bench/bench-script.js';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import type { HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { localActivityMarkers } from '../support/local-activity-markers.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { createRoutesFixture, fakeOpenAiRoute, writeRoutesJson } from '../support/routes-fixture.js';
import {
  startFakeServer,
  startSse,
  writeSse,
  type FakeServer,
} from '../unit/activities/model/support/fake-http-server.js';
import { chunk, done, usageChunk } from '../unit/activities/model/support/openai-wire.js';

const STEPS = 2;
/** The bench script's usage of every call (apps/bench/bench-script.ts). */
const USAGE = { inputTokens: 100, outputTokens: 10 };
const MODEL = ['callModel', 'callModelV2', 'callModelV3'];
const TOOL = ['runTool', 'runToolV2', 'runToolV3'];
/** A fast route whose first answer is held 2.5 s, over its 1 s fast timeout. */
const SLOW_ROUTE = 'bench-slow-model@v1';

/** `bench.fast_steps@v1`'s one-step script, its first answer held `delayMs` whatever the cancellation. */
function heldFirstAnswer(delayMs: number): ModelScript {
  const script = benchScript(1, true);
  return {
    ...script,
    entries: script.entries.map((e) =>
      e.match.contains === BENCH_TASK_MESSAGE ? { ...e, response: { ...e.response, delayMs } } : e,
    ),
  };
}

async function replays(handle: WorkflowHandle): Promise<void> {
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: inject('workflowBundlePath') } },
    await handle.fetchHistory(),
    handle.workflowId,
  );
}

/**
 * Fast model routes (agent-run-fast-model-v1, docs/models.md "Fast model routes"): a model call on a
 * pinned route declaring `fast` runs as a local activity in the workflow task that decided it; a try
 * over its fast timeout falls back to the regular model activity; usage is counted once.
 */
describe('fast model routes run their calls as local activities (real server)', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createRoutesFixture('fast-model', {
      dirPrefix: 'fast-model-routes-',
      write: (dir) =>
        writeScriptedRoutesFile(dir, {
          ...benchModelRoutes([STEPS]),
          [SLOW_ROUTE]: { script: heldFirstAnswer(2_500), fast: { timeoutMs: 1_000 } },
        }),
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const run = async (modelRoute: string, steps = STEPS): Promise<WorkflowHandle> => {
    const handle = await h.start({
      profile: { name: 'bench.fast_steps', version: 'v1' },
      modelRoute,
      task: { message: BENCH_TASK_MESSAGE },
      budget: benchBudget(steps),
    });
    expect((await handle.result()) as AgentRunResult).toMatchObject({ status: 'succeeded', output: 'done' });
    return handle;
  };
  const eventsOf = async (handle: WorkflowHandle) => h.composition.store.listEvents(handle.workflowId);
  const scheduled = async (handle: WorkflowHandle, types: string[]) =>
    (await historyOf(handle)).filter(
      (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && types.includes(e.activityType ?? ''),
    );

  it('every model call on a fast route is a local-activity marker, and the run records what a regular one does', async () => {
    const fast = await run(benchModelRoute(STEPS));
    const regular = await run(benchModelRoute(STEPS, false));

    // Fast: no activity task for a model call or a tool call; one marker each, in step order.
    expect(await scheduled(fast, [...MODEL, ...TOOL])).toEqual([]);
    const markers = await localActivityMarkers(fast);
    expect(markers.filter((m) => [...MODEL, ...TOOL].includes(m.activityType))).toEqual(
      ['callModelV3', 'runToolV3', 'callModelV3', 'runToolV3', 'callModelV3'].map((activityType) => ({
        activityType,
        attempt: 1,
        failed: false,
      })),
    );
    // A route without `fast` is unchanged: its model calls are activities.
    expect(await scheduled(regular, MODEL)).toHaveLength(STEPS + 1);
    expect((await localActivityMarkers(regular)).filter((m) => MODEL.includes(m.activityType))).toEqual([]);

    // The same evidence: the same events in the same order, usage counted once per call.
    const [fastEvents, regularEvents] = [await eventsOf(fast), await eventsOf(regular)];
    expect(fastEvents.map((e) => e.type)).toEqual(regularEvents.map((e) => e.type));
    const completed = fastEvents.filter((e) => e.type === 'model.completed');
    expect(completed.map((e) => [e.data['callSeq'], e.data['usage'], e.data['replayed']])).toEqual(
      [1, 2, 3].map((seq) => [seq, USAGE, false]),
    );
    for (const handle of [fast, regular]) {
      const view = await handle.query<RunView>('state');
      expect(view.budget).toMatchObject({
        modelCalls: STEPS + 1,
        inputTokens: (STEPS + 1) * USAGE.inputTokens,
        outputTokens: (STEPS + 1) * USAGE.outputTokens,
      });
      expect(await h.composition.store.listMessageGroups(handle.workflowId)).toHaveLength(STEPS + 1);
    }
    // The fast try's live deltas go under its own attempt tag (`l1`), never the regular activity's.
    const id = fast.workflowId;
    expect(await h.composition.store.listModelDeltas(id, `${id}:m1:l1`)).not.toEqual([]);
    expect(await h.composition.store.listModelDeltas(id, `${id}:m1:a1`)).toEqual([]);
    await replays(fast);
    await recordFixtureIfAsked(h.t.client, fast.workflowId, 'bench-fast-model-v1');
  });

  it('a fast try over its timeout falls back to the regular activity; the answer it got is taken once', async () => {
    const handle = await run(SLOW_ROUTE, 1);

    // The first call: a failed fast try (its timeout), then the regular activity; the second is fast.
    const models = (await localActivityMarkers(handle)).filter((m) => MODEL.includes(m.activityType));
    expect(models.map((m) => m.failed)).toEqual([true, false]);
    expect(await scheduled(handle, MODEL)).toHaveLength(1);

    // The abandoned try's provider answered (held past the timeout, not stopped) and stored the
    // answer first; the regular activity got an answer too, and took the stored one: one message
    // group, one model.completed, usage and cost counted once.
    const id = handle.workflowId;
    expect(await h.composition.store.listModelDeltas(id, `${id}:m1:l1`)).not.toEqual([]);
    expect(await h.composition.store.listModelDeltas(id, `${id}:m1:a1`)).not.toEqual([]);
    const completed = (await eventsOf(handle)).filter((e) => e.type === 'model.completed');
    expect(completed.map((e) => [e.data['callSeq'], e.data['usage'], e.data['replayed']])).toEqual([
      [1, USAGE, true],
      [2, USAGE, false],
    ]);
    const view = await handle.query<RunView>('state');
    expect(view.budget).toMatchObject({
      modelCalls: 2,
      inputTokens: 2 * USAGE.inputTokens,
      outputTokens: 2 * USAGE.outputTokens,
    });
    expect(await h.composition.store.listMessageGroups(id)).toHaveLength(2);
    // The fallback replays: the failed try's marker leads to the same activity command.
    await replays(handle);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'bench-fast-model-fallback-v1');
  });
});

/** What the provider bills for its refusal (tokens), and the scripted fallback route's answer. */
const REFUSAL_USAGE = { inputTokens: 30, outputTokens: 2 };
const ANSWER_USAGE = { inputTokens: 10, outputTokens: 3 };

describe(
  "a fast try the provider refused and billed is the call's outcome (real server, real SDK)",
  { timeout: 60_000 },
  () => {
    let server: FakeServer;
    let h: HarnessFixture;
    beforeAll(async () => {
      server = await startFakeServer();
      server.handle((_req, res) => {
        startSse(res);
        writeSse(res, chunk({ content: 'I will' }));
        writeSse(res, chunk({}, 'content_filter'));
        writeSse(res, usageChunk(REFUSAL_USAGE.inputTokens, REFUSAL_USAGE.outputTokens));
        done(res);
      });
      const routes = {
        schemaVersion: 1,
        routes: {
          'guarded@v1': fakeOpenAiRoute(server, 'FAST_MODEL_KEY', {
            fast: { timeoutMs: 5_000 },
            fallbacks: [{ route: 'answer@v1', on: ['refusal'] }],
          }),
          'answer@v1': {
            provider: 'scripted',
            model: 'scripted',
            script: 'answer.json',
            contextWindow: 128_000,
            prices: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
          },
        },
        purposes: { default: 'guarded@v1' },
      };
      h = await createRoutesFixture('fast-model-refusal', {
        dirPrefix: 'fast-model-refusal-',
        write: (dir) =>
          writeRoutesJson(dir, routes, {
            'answer.json': {
              entries: [],
              fallback: { text: 'Answered after a refusal.', usage: ANSWER_USAGE },
            },
          }),
        env: { FAST_MODEL_KEY: 'sk-fast-model-0123456789' },
      });
    });
    afterAll(async () => {
      await h?.close();
      await server?.close();
    });

    it('is not asked again: the route falls back with the billed usage counted once', async () => {
      const handle = await h.start({
        profile: { name: 'support.answer', version: 'v1' },
        modelRoute: 'guarded@v1',
        task: { message: 'When will ORD-1001 ship?' },
      });
      const result = (await handle.result()) as AgentRunResult;
      expect(result).toMatchObject({ status: 'succeeded', output: 'Answered after a refusal.' });
      // The provider was asked once, by the fast try; its refusal is the call's outcome on the route.
      expect(server.requests).toHaveLength(1);
      const models = (await localActivityMarkers(handle)).filter((m) => MODEL.includes(m.activityType));
      expect(models.map((m) => m.failed)).toEqual([true]);
      const fallbackCalls = (await historyOf(handle)).filter(
        (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && MODEL.includes(e.activityType ?? ''),
      );
      expect(fallbackCalls).toHaveLength(1);

      const events = (await h.composition.store.listEvents(handle.workflowId)).filter((e) =>
        e.type.startsWith('model.'),
      );
      expect(events.map((e) => e.type)).toEqual([
        'model.started',
        'model.failed',
        'model.fallback',
        'model.completed',
      ]);
      expect(events[2]!.data).toMatchObject({
        from: 'guarded@v1',
        to: 'answer@v1',
        reason: 'refusal',
        code: 'model.blocked',
      });
      expect((events[2]!.data['billed'] as { usage: unknown }).usage).toEqual(REFUSAL_USAGE);
      const view = await handle.query<RunView>('state');
      expect(view.budget).toMatchObject({
        modelCalls: 1,
        inputTokens: REFUSAL_USAGE.inputTokens + ANSWER_USAGE.inputTokens,
        outputTokens: REFUSAL_USAGE.outputTokens + ANSWER_USAGE.outputTokens,
      });
      // Live and replay decide alike on the refused try's marker.
      await replays(handle);
      await recordFixtureIfAsked(h.t.client, handle.workflowId, 'support-fast-model-refusal-v1');
    });
  },
);
