import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { verifyProofBundle } from '../../src/client/proof/verify-bundle.js';
import {
  startGatedModelServer,
  type GatedAnswer,
  type GatedModelServer,
} from '../support/gated-model-server.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { historyOf, workflowTaskWorkers, type HistoryEntry } from '../support/history.js';
import { localActivityMarkers } from '../support/local-activity-markers.js';
import { createFaultRig, resultOf, type FaultRig } from './fault-rig.js';

/** A routes-file version declaring `fast`, on the test's OpenAI-compatible server. */
const ROUTE = 'fast-drill@v1';
const KEY_ENV = 'FAST_MODEL_KEY';
const USAGE = { inputTokens: 321, outputTokens: 45 };
const ANSWER = ['Your order ORD-1001 ', 'ships within ', 'two days.'];
const MODEL = ['callModel', 'callModelV2', 'callModelV3'];
const WORKFLOW_TASK_TIMEOUT_S = 30;

/** The run's routes file (in a fresh folder): one OpenAI route with the longest fast timeout. */
function writeRoutesFile(baseUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fast-model-kill-'));
  const file = join(dir, 'routes.json');
  writeFileSync(
    file,
    JSON.stringify({
      schemaVersion: 1,
      routes: {
        [ROUTE]: {
          provider: 'openai',
          model: 'gpt-fake-1',
          baseUrl,
          apiKeyEnv: KEY_ENV,
          contextWindow: 128_000,
          prices: { inputUsdPerMTok: 2, outputUsdPerMTok: 8 },
          fast: { timeoutMs: 10_000 },
        },
      },
      purposes: { default: ROUTE },
    }),
  );
  return file;
}

/** The text a call's stored deltas carry, in order. */
function textOf(deltas: readonly { type: string; data: unknown }[]): string {
  return deltas
    .filter((d) => d.type === 'model.text.delta')
    .map((d) => (d.data as { delta: string }).delta)
    .join('');
}

/** The seconds between the start of the one timed-out workflow task and its timeout. */
async function lostTaskSeconds(handle: WorkflowHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const i = events.findIndex((e) => e.workflowTaskTimedOutEventAttributes);
  return (tsToMs(events[i]!.eventTime) - tsToMs(events[i - 1]!.eventTime)) / 1000;
}

/** Worker identity and attempt of each run of the run's one scheduled model activity. */
async function modelActivityRuns(handle: WorkflowHandle): Promise<[string, number][]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.filter((e) =>
    MODEL.includes(e.activityTaskScheduledEventAttributes?.activityType?.name ?? ''),
  );
  expect(scheduled).toHaveLength(1);
  return events.flatMap((e) => {
    const a = e.activityTaskStartedEventAttributes;
    return a && String(a.scheduledEventId) === String(scheduled[0]!.eventId)
      ? [[a.identity ?? '', a.attempt ?? 0] as [string, number]]
      : [];
  });
}

/**
 * A worker killed (SIGKILL) while its fast model call (a local activity, docs/models.md "Fast model
 * routes", "Lost worker") waits for a real OpenAI-compatible server: the workflow task it held times
 * out, another worker replays the run and runs the fast try again, asking the provider again (a
 * model call is a read); the call is recorded once, and its cost is counted once.
 */
describe('faults: a worker dies during a fast model call', { timeout: 180_000 }, () => {
  let server: GatedModelServer | undefined;
  let rig: FaultRig | undefined;
  let handle: WorkflowHandle | undefined;
  afterEach(async () => {
    await killAllWorkerProcesses();
    await handle?.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
    await server?.close();
    [server, rig, handle] = [undefined, undefined, undefined];
  });

  /** A gated server answering `answerFor`, a rig whose workers route the run's calls to it, and the run. */
  async function drill(name: string, answerFor: (index: number) => GatedAnswer) {
    const s = (server = await startGatedModelServer(answerFor, USAGE));
    const r = (rig = await createFaultRig(name, {
      compositionEnv: {
        HARNESS_MODEL_ROUTES: writeRoutesFile(s.baseUrl),
        [KEY_ENV]: 'sk-fast-kill-0123456789',
      },
    }));
    const first = await r.worker();
    const h = (handle = await r.start({
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: ROUTE,
      task: { message: 'When will my order ORD-1001 ship?' },
    }));
    const deltas = (attempt: string) =>
      r.composition.store.listModelDeltas(h.workflowId, `${h.workflowId}:m1:${attempt}`);
    return { s, r, h, first, deltas };
  }

  /**
   * What both drills find: the run succeeded with the answer; the workflow task of the killed worker
   * timed out (start-to-close, after the run's 30 s) and a later one ran on the second worker; the
   * evidence holds one answer for call 1 (one message group, one `model.completed`, not replayed),
   * usage counted once, no event or event id twice, and the chain verifies.
   */
  async function expectOneCall(
    r: FaultRig,
    h: WorkflowHandle,
    pids: { first: number; second: number },
  ): Promise<HistoryEntry[]> {
    expect(await resultOf(h)).toMatchObject({ status: 'succeeded', output: ANSWER.join('') });

    const history = await historyOf(h);
    const timedOut = history.flatMap((e, i) => (e.type === 'EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT' ? [i] : []));
    expect(timedOut).toHaveLength(1);
    expect(history[timedOut[0]!]).toMatchObject({ timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' });
    expect(history[timedOut[0]! - 1]).toMatchObject({
      type: 'EVENT_TYPE_WORKFLOW_TASK_STARTED',
      identity: `${hostname()}:${pids.first}`,
    });
    expect(await lostTaskSeconds(h)).toBeGreaterThanOrEqual(WORKFLOW_TASK_TIMEOUT_S - 1);
    expect(workflowTaskWorkers(history).at(-1)).toBe(`${hostname()}:${pids.second}`);

    const id = h.workflowId;
    const events = await r.composition.store.listEvents(id);
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    const model = events.filter((e) => e.type.startsWith('model.'));
    expect(model.map((e) => e.type)).toEqual(['model.started', 'model.completed']);
    expect([model[1]!.data['callSeq'], model[1]!.data['usage'], model[1]!.data['replayed']]).toEqual([
      1,
      USAGE,
      false,
    ]);
    expect((await r.composition.store.listMessageGroups(id)).map((g) => g.seq)).toEqual([1]);
    const view = await h.query<RunView>('state');
    expect(view.budget).toMatchObject({
      modelCalls: 1,
      inputTokens: USAGE.inputTokens,
      outputTokens: USAGE.outputTokens,
    });

    // The chain and the history agree (docs/evidence-chain.md); these workers sign no heads.
    const proof = verifyProofBundle(await collectProofBundle(r.composition.store, r.client, id));
    expect(proof.checks.filter((c) => !c.ok).map((c) => c.code)).toEqual(['heads.unsigned', 'seal.unsigned']);
    return history;
  }

  it('killed before any answer: the next worker asks the provider again, and its fast try answers the call', async () => {
    // The first request is held without a byte of answer; every later one is answered once released.
    const { s, r, h, first, deltas } = await drill('fast-model-kill', () => ({ pieces: ANSWER }));
    await s.arrived(1);
    await first.kill();
    expect((await s.ended(0)).aborted).toBe(true);
    // The lost try stored no deltas (fewer than one write's worth were pending when it died).
    expect(await deltas('l1')).toEqual([]);

    const second = await r.worker();
    s.release();
    const history = await expectOneCall(r, h, { first: first.pid, second: second.pid });

    // The provider was asked twice, the same request both times: the lost try's, then the new fast try's.
    expect(s.requests.map((q) => [q.aborted, q.finished])).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(s.requests[1]!.body['messages']).toEqual(s.requests[0]!.body['messages']);
    // No activity task for the call: one local activity marker, a first try that answered.
    expect(
      history.filter(
        (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && MODEL.includes(e.activityType ?? ''),
      ),
    ).toEqual([]);
    expect((await localActivityMarkers(h)).filter((m) => MODEL.includes(m.activityType))).toEqual([
      { activityType: 'callModelV3', attempt: 1, failed: false },
    ]);
    // The new try's deltas went under `l1`, the id the lost try had; none under `a1`.
    expect(textOf(await deltas('l1'))).toBe(ANSWER.join(''));
    expect(await deltas('a1')).toEqual([]);
    await second.kill();
  });

  it('killed mid-stream: the new fast try differs from the stored deltas and fails; the regular activity answers', async () => {
    // The first request streams 20 pieces at once (one delta write's worth reaches the store), then
    // is held; the new fast try and the regular activity get the answer.
    const lost = Array.from({ length: 20 }, (_, i) => `lost${i} `);
    const { s, r, h, first, deltas } = await drill('fast-model-kill-stream', (i) =>
      i === 0 ? { early: lost, pieces: ['never sent'] } : { pieces: ANSWER },
    );
    await s.arrived(1);
    await expect
      .poll(async () => (await deltas('l1')).length, { timeout: 30_000, interval: 50 })
      .toBeGreaterThan(0);
    await first.kill();
    expect((await s.ended(0)).aborted).toBe(true);
    const stored = await deltas('l1');
    expect(textOf(stored)).toMatch(/^lost0 lost1 /);

    const second = await r.worker();
    s.release();
    const history = await expectOneCall(r, h, { first: first.pid, second: second.pid });

    // Asked three times: the lost try, the new fast try (refused by the store), the regular activity.
    expect(s.requests.map((q) => [q.aborted, q.finished])).toEqual([
      [true, false],
      [false, true],
      [false, true],
    ]);
    // The fast try's marker records its failure; the call then ran once as the regular activity, on
    // the second worker.
    expect((await localActivityMarkers(h)).filter((m) => MODEL.includes(m.activityType))).toEqual([
      { activityType: 'callModelV3', attempt: 1, failed: true },
    ]);
    const scheduled = history.filter(
      (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && MODEL.includes(e.activityType ?? ''),
    );
    expect(scheduled.map((e) => e.activityType)).toEqual(['callModelV3']);
    expect(await modelActivityRuns(h)).toEqual([[`${hostname()}:${second.pid}`, 1]]);
    // `l1` keeps the lost try's deltas (the new try's were refused); the answer's are under `a1`.
    expect(await deltas('l1')).toEqual(stored);
    expect(textOf(await deltas('a1'))).toBe(ANSWER.join(''));
    await second.kill();
  });
});
