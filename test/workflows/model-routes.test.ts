import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import type { RefundComposition } from '../../apps/refund/composition.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { harnessActivities } from '../../src/worker/harness-worker.js';
import type { HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { TEST_PRINCIPALS } from '../support/principals.js';
import { createRoutesFixture, fakeOpenAiRoute, writeRoutesJson } from '../support/routes-fixture.js';
import { connectTestTemporal, startWorker, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';
import {
  jsonError,
  startFakeServer,
  startSse,
  type FakeServer,
} from '../unit/activities/model/support/fake-http-server.js';
import { chunk, done, usageChunk } from '../unit/activities/model/support/openai-wire.js';
import { messageEnd, messageStart, textBlock } from '../unit/activities/model/support/anthropic-wire.js';

/** Keys the worker reads from the variables the routes file names: they must never reach history. */
const OPENAI_KEY = 'sk-routes-primary-0123456789';
const ANTHROPIC_KEY = 'sk-ant-routes-secondary-0123456789';
const KEYS = { PRIMARY_KEY: OPENAI_KEY, SECONDARY_KEY: ANTHROPIC_KEY };

const OPENAI_USAGE = { inputTokens: 21, outputTokens: 5 };
const ANTHROPIC_USAGE = { inputTokens: 30, outputTokens: 7 };

/** An OpenAI-compatible server: 503 while `down()`, else one text answer with usage. */
function serveOpenAi(server: FakeServer, text: string, down: () => boolean = () => false): void {
  server.handle((_req, res) => {
    if (down()) {
      jsonError(res, 503, { error: { message: 'upstream overloaded', type: 'server_error' } });
      return;
    }
    startSse(res);
    res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: text }))}\n\n`);
    res.write(`data: ${JSON.stringify(chunk({}, 'stop'))}\n\n`);
    res.write(`data: ${JSON.stringify(usageChunk(OPENAI_USAGE.inputTokens, OPENAI_USAGE.outputTokens))}\n\n`);
    done(res);
  });
}

/** An Anthropic-compatible server: one text answer with usage. */
function serveAnthropic(server: FakeServer, text: string): void {
  server.handle((_req, res) => {
    startSse(res);
    messageStart(res, ANTHROPIC_USAGE.inputTokens);
    textBlock(res, 0, [text.slice(0, 8), text.slice(8)]);
    messageEnd(res, 'end_turn', ANTHROPIC_USAGE.outputTokens);
  });
}

const FAST_RETRY = { maxAttempts: 2, initialIntervalMs: 100, maxIntervalMs: 200 };

function openAiRoute(server: FakeServer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return fakeOpenAiRoute(server, 'PRIMARY_KEY', { retry: FAST_RETRY, ...extra });
}

function anthropicRoute(server: FakeServer): Record<string, unknown> {
  return {
    provider: 'anthropic',
    model: 'claude-fake-1',
    baseUrl: server.origin,
    apiKeyEnv: 'SECONDARY_KEY',
    contextWindow: 200_000,
    prices: { inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
    retry: FAST_RETRY,
  };
}

interface EventRow {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

async function eventsOf(composition: RefundComposition, runId: string): Promise<EventRow[]> {
  return await composition.store.listEvents(runId);
}

const SUPPORT = { name: 'support.answer', version: 'v1' } as const;

describe('model routes: two real providers, a fallback on outage (real server, real SDKs)', () => {
  let openai: FakeServer;
  let anthropic: FakeServer;
  let h: HarnessFixture;
  let primaryDown = true;
  beforeAll(async () => {
    openai = await startFakeServer();
    anthropic = await startFakeServer();
    serveOpenAi(openai, 'Primary answer: ORD-1001 ships tomorrow.', () => primaryDown);
    serveAnthropic(anthropic, 'Fallback answer: ORD-1001 ships tomorrow.');
    const routes = {
      schemaVersion: 1,
      routes: {
        'support@v1': openAiRoute(openai, {
          fallbacks: [{ route: 'support-claude@v1', on: ['outage', 'rate_limited'] }],
        }),
        'support-claude@v1': anthropicRoute(anthropic),
      },
      purposes: { default: 'support@v1' },
    };
    h = await createRoutesFixture('model-routes', {
      dirPrefix: 'routes-',
      write: (dir) => writeRoutesJson(dir, routes),
      env: KEYS,
    });
  });
  afterAll(async () => {
    await h?.close();
    await openai?.close();
    await anthropic?.close();
  });

  it('the primary answers 503, the run falls back to the second provider; events name both; usage and cost once', async () => {
    expect(h.composition.defaultModelRoute).toBe('support@v1');
    const handle = await h.start({
      profile: SUPPORT,
      modelRoute: undefined,
      task: { message: 'When will ORD-1001 ship?' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.terminalReason ?? null).toBeNull();
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe('Fallback answer: ORD-1001 ships tomorrow.');
    expect(result.versions.modelRoute).toBe('support@v1');

    // Both real servers were asked, through their SDKs, with the keys the file's variables hold.
    expect(openai.requests).toHaveLength(FAST_RETRY.maxAttempts);
    expect(openai.requests[0]).toMatchObject({ path: '/v1/chat/completions' });
    expect(openai.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(anthropic.requests).toHaveLength(1);
    expect(anthropic.requests[0]).toMatchObject({ path: '/v1/messages' });
    const sent = anthropic.requests[0]!;
    expect([sent.headers['x-api-key'], sent.headers.authorization]).toContainEqual(
      expect.stringContaining(ANTHROPIC_KEY),
    );
    expect(sent.body).toMatchObject({ model: 'claude-fake-1' });
    expect(openai.requests[0]!.body).toMatchObject({ model: 'gpt-fake-1' });

    const events = await eventsOf(h.composition, handle.workflowId);
    const created = events.find((e) => e.type === 'run.created')!;
    expect(created.data.modelRoutes).toMatchObject({
      purposes: { default: 'support@v1' },
      routes: {
        'support@v1': { provider: 'openai', model: 'gpt-fake-1', maxAttempts: 2 },
        'support-claude@v1': { provider: 'anthropic', model: 'claude-fake-1' },
      },
    });
    const model = events.filter((e) => e.type.startsWith('model.'));
    // The primary failed for good (model.failed, since agent-run-event-envelope-v1), then the fallback.
    expect(model.map((e) => e.type)).toEqual([
      'model.started',
      'model.failed',
      'model.fallback',
      'model.completed',
    ]);
    expect(model[0]!.data).toMatchObject({ callSeq: 1, modelRoute: 'support@v1', provider: 'openai' });
    expect(model[1]!.data).toMatchObject({
      callSeq: 1,
      modelRoute: 'support@v1',
      provider: 'openai',
      code: 'model.provider_unavailable',
    });
    expect(model[2]!.data).toMatchObject({
      callSeq: 1,
      from: 'support@v1',
      fromProvider: 'openai',
      to: 'support-claude@v1',
      toProvider: 'anthropic',
      reason: 'outage',
      code: 'model.provider_unavailable',
    });
    const cost = (ANTHROPIC_USAGE.inputTokens * 3 + ANTHROPIC_USAGE.outputTokens * 15) / 1_000_000;
    expect(model[3]!.data).toMatchObject({
      callSeq: 1,
      modelRoute: 'support-claude@v1',
      provider: 'anthropic',
      usage: ANTHROPIC_USAGE,
    });
    expect(model[3]!.data.costUsd).toBeCloseTo(cost, 12);

    // Usage and cost are counted once, for the call that was answered.
    const view = await handle.query<RunView>('state');
    expect(view.budget).toMatchObject({ modelCalls: 1, ...ANTHROPIC_USAGE });
    expect(view.budget.costUsd).toBeCloseTo(cost, 12);

    // Each route is its own activity in history (attempts of the primary, then the fallback).
    const history = await historyOf(handle);
    const scheduled = history.filter(
      (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && e.activityType === 'callModelV3',
    );
    expect(scheduled).toHaveLength(2);
    // The fallback is on through the baseline (run-patches.ts): no marker of its own, and a marker-free
    // start records none at all.
    expect(history.flatMap((e) => (e.patchId ? [e.patchId] : []))).toEqual([]);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'support-baseline3-model-fallback-v1');

    // The live deltas of each route name it and its provider; usage is reported once, by the answer.
    const store = h.composition.store;
    const primary = await store.listModelDeltas(handle.workflowId, `${handle.workflowId}:m1:a2`);
    expect(primary.map((d) => d.type)).toEqual(['model.started', 'model.failed']);
    expect(primary[0]!.data).toMatchObject({ model: 'support@v1', provider: 'openai' });
    const second = await store.listModelDeltas(handle.workflowId, `${handle.workflowId}:m1:f1:a1`);
    expect(second[0]!.data).toMatchObject({ model: 'support-claude@v1', provider: 'anthropic' });
    expect(second.filter((d) => d.type === 'model.usage.completed')).toHaveLength(1);

    // No key in history.
    const raw = JSON.stringify((await handle.fetchHistory()).events);
    expect(raw).not.toContain(OPENAI_KEY);
    expect(raw).not.toContain(ANTHROPIC_KEY);
  });

  it('once the primary is back, the next run is answered by it (no fallback)', async () => {
    primaryDown = false;
    const handle = await h.start({
      profile: SUPPORT,
      modelRoute: undefined,
      task: { message: 'When will ORD-1001 ship?' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.output).toBe('Primary answer: ORD-1001 ships tomorrow.');
    const model = (await eventsOf(h.composition, handle.workflowId)).filter((e) =>
      e.type.startsWith('model.'),
    );
    expect(model.map((e) => e.type)).toEqual(['model.started', 'model.completed']);
    expect(model[1]!.data).toMatchObject({
      modelRoute: 'support@v1',
      provider: 'openai',
      usage: OPENAI_USAGE,
    });
  });
});

describe('model routes: a run keeps its pinned version when the file moves to a new one', () => {
  let v1Server: FakeServer;
  let v2Server: FakeServer;
  let t: TestTemporal;
  let dir: string;
  const taskQueue = uniqueTaskQueue('model-routes-pin');
  const compositions: RefundComposition[] = [];
  beforeAll(async () => {
    v1Server = await startFakeServer();
    v2Server = await startFakeServer();
    serveOpenAi(v1Server, 'Answered by support@v1.');
    serveAnthropic(v2Server, 'Answered by support@v2.');
    dir = mkdtempSync(join(tmpdir(), 'routes-pin-'));
    t = await connectTestTemporal();
  });
  afterAll(async () => {
    for (const c of compositions) await c.close();
    await t?.close();
    await v1Server?.close();
    await v2Server?.close();
  });

  async function workerWithRoutes(
    name: string,
    routes: unknown,
    options: { activities: boolean },
  ): Promise<{ composition: RefundComposition; stop: () => Promise<void> }> {
    const file = join(dir, `${name}.yaml`);
    // YAML this time (the JSON form is the first describe's).
    writeFileSync(file, stringifyYaml(routes));
    const composition = await createShowcaseComposition({
      storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
      refundStorePath: join(dir, 'refund.db'),
      env: { HARNESS_MODEL_ROUTES: file, ...KEYS },
      principals: TEST_PRINCIPALS,
      identity: name,
    });
    compositions.push(composition);
    const worker = await Worker.create({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue,
      identity: name,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: harnessActivities(composition),
      // The first worker only starts runs (its local activity pins them); it takes no model call.
      enableNonLocalActivities: options.activities,
    });
    return { composition, stop: startWorker(worker) };
  }

  async function waitForModelTask(handle: WorkflowHandle): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const history = await historyOf(handle);
      if (
        history.some(
          (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && e.activityType === 'callModelV3',
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the run never scheduled its model call');
  }

  it('a run pinned on support@v1 is answered by v1 after every worker moved to a file whose default is v2', async () => {
    const v1 = { 'support@v1': openAiRoute(v1Server) };
    const first = await workerWithRoutes(
      'routes-v1',
      { schemaVersion: 1, routes: v1, purposes: { default: 'support@v1' } },
      { activities: false },
    );
    const start = (id: string) =>
      t.client.workflow.start('agentRun', {
        taskQueue,
        workflowId: `${id}-${Date.now()}`,
        args: [{ schemaVersion: 1, profile: SUPPORT, task: { message: 'When will ORD-1001 ship?' } }],
      });
    const pinned = await start('pinned-v1');
    await waitForModelTask(pinned);
    await first.stop();

    // The new file: v1 unchanged (versions stay while runs may pin them), v2 the default now.
    const second = await workerWithRoutes(
      'routes-v2',
      {
        schemaVersion: 1,
        routes: { ...v1, 'support@v2': anthropicRoute(v2Server) },
        purposes: { default: 'support@v2' },
      },
      { activities: true },
    );
    try {
      const a = (await pinned.result()) as AgentRunResult;
      expect(a.status).toBe('succeeded');
      expect(a.output).toBe('Answered by support@v1.');
      expect(a.versions.modelRoute).toBe('support@v1');
      const aEvents = await eventsOf(second.composition, pinned.workflowId);
      expect(aEvents.find((e) => e.type === 'run.created')!.data.modelRoutes).toMatchObject({
        purposes: { default: 'support@v1' },
      });
      expect(aEvents.find((e) => e.type === 'model.completed')!.data).toMatchObject({
        modelRoute: 'support@v1',
        provider: 'openai',
      });
      // The start ran on the first worker, the model call on the second.
      const history = await historyOf(pinned);
      const started = history.filter((e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_STARTED');
      expect(started.map((e) => e.identity)).toEqual(['routes-v2']);

      const fresh = await start('pinned-v2');
      const b = (await fresh.result()) as AgentRunResult;
      expect(b.output).toBe('Answered by support@v2.');
      expect(b.versions.modelRoute).toBe('support@v2');
      const bCompleted = (await eventsOf(second.composition, fresh.workflowId)).find(
        (e) => e.type === 'model.completed',
      )!;
      expect(bCompleted.data).toMatchObject({ modelRoute: 'support@v2', provider: 'anthropic' });
      expect(v1Server.requests).toHaveLength(1);
      expect(v2Server.requests).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
