import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import type { RefundComposition } from '../../apps/refund/composition.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import type { BundlePin } from '../../src/contract/bundles.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { loadBundleCatalog, type BundleCatalog } from '../../src/activities/bundles/bundle-catalog.js';
import { createHarnessWorker, harnessActivities } from '../../src/worker/harness-worker.js';
import { parseModelScript } from '../../src/activities/model/scripted-script.js';
import { ScriptedProvider } from '../../src/activities/model/scripted-provider.js';
import { TEST_PRINCIPALS } from '../support/principals.js';
import { connectTestTemporal, startWorker, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';
import { ENDLESS_READS } from '../support/scripts.js';
import type { EventRow } from './control-plane-bundles-fixtures.js';
import {
  STABLE_TEXT,
  CANDIDATE_TEXT,
  ROLLOUT_ID,
  ROLLOUT_SECRET,
  salted,
  SUPPORT,
  REAL_RUNS,
  TAG,
  ANSWER,
  bundlesFolder,
  policyFolder,
  GatedProvider,
  pinOf,
  carriedPinOf,
  taskFailures,
  executionsOf,
  until,
  idsIn,
  pool,
} from './control-plane-bundles-fixtures.js';

/**
 * Control-plane bundles on the real dev server (docs/control-plane.md): a prompt bundle rolled out to
 * 20 % of new runs, counted from the pins of real runs; the rollout set back to 0 %; a run in flight
 * keeps its pin across the change and across continue-as-new, resolved by a worker through the pin;
 * a worker that lacks the pinned version, or has other content under it, fails the workflow task with
 * a typed message and never falls back.
 */
describe('control-plane bundles: a prompt rolled out to 20 % of new runs (real server)', () => {
  let t: TestTemporal;
  let base: RefundComposition;
  let root: string;
  let gated: GatedProvider;
  let taskQueue: string;
  const stops: (() => Promise<void>)[] = [];
  const catalogs: Record<string, BundleCatalog> = {};

  /** A worker on the shared queue serving `catalog` (its own identity), sharing the store and models. */
  async function worker(name: string, catalog: BundleCatalog | undefined): Promise<() => Promise<void>> {
    const { bundles: _b, ...rest } = base;
    const composition = { ...rest, identity: `bundles-${name}`, ...(catalog ? { bundles: catalog } : {}) };
    const stop = startWorker(
      await createHarnessWorker({
        connection: t.nativeConnection,
        namespace: t.namespace,
        taskQueue,
        composition,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      }),
    );
    stops.push(stop);
    return stop;
  }

  /**
   * Stop a worker and start its successor. A held run is swapped right after one of its calls was
   * refused (in the retry backoff, nothing running), and let through once the successor runs.
   */
  async function swap(
    stop: () => Promise<void>,
    name: string,
    catalog: BundleCatalog | undefined,
  ): Promise<() => Promise<void>> {
    if (gated.closed) {
      const seen = gated.refused;
      await until('a refused model call', () => (gated.refused > seen ? true : undefined), 30_000);
    }
    await stop();
    const next = await worker(name, catalog);
    gated.reopen();
    return next;
  }

  function start(workflowId: string, input: Partial<AgentRunInput> = {}): Promise<WorkflowHandle> {
    return startAgentRun(t.client, {
      taskQueue,
      workflowId,
      input: {
        schemaVersion: 1,
        profile: SUPPORT,
        modelRoute: 'scripted/answer',
        task: { message: 'When will ORD-1001 ship?' },
        ...input,
      },
    });
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'bundles-'));
    const at20 = bundlesFolder(root, 'at20', { percent: 20 });
    catalogs.at0 = loadBundleCatalog(bundlesFolder(root, 'at0', { percent: 0 }), salted);
    catalogs.missing = loadBundleCatalog(bundlesFolder(root, 'missing', { percent: 0, v2: false }), salted);
    catalogs.policy = loadBundleCatalog(policyFolder(root), salted);
    catalogs.changed = loadBundleCatalog(
      bundlesFolder(root, 'changed', { percent: 0, v2Text: `${CANDIDATE_TEXT} (edited in place)` }),
      salted,
    );
    t = await connectTestTemporal();
    gated = new GatedProvider(new ScriptedProvider(parseModelScript(ENDLESS_READS, 'gated/endless')));
    // The base worker reads its bundles folder from HARNESS_BUNDLES, as `harness worker` does.
    base = await createShowcaseComposition({
      storeUrl: `sqlite:${join(root, 'evidence.db')}`,
      refundStorePath: join(root, 'refund.db'),
      env: { HARNESS_BUNDLES: at20, HARNESS_ROLLOUT_SECRET: ROLLOUT_SECRET.toString('utf8') },
      principals: TEST_PRINCIPALS,
      scripts: { 'scripted/answer': ANSWER },
      extend: [(_registry, models) => void models.register('gated/endless', gated, 'scripted')],
    });
    catalogs.at20 = base.bundles!;
    taskQueue = uniqueTaskQueue('bundles');
  }, 120_000);

  /** Every worker of an earlier test is stopped (one worker per task queue and process). */
  async function stopAll(): Promise<void> {
    gated?.reopen();
    for (const stop of stops.splice(0)) await stop();
  }
  beforeEach(stopAll);

  afterAll(async () => {
    await stopAll();
    await base?.close();
    await t?.close();
  });

  it(
    'a rollout at 20 %: 500 new runs give about 100 candidate pins; real runs pin the arm the start gives, and the model got that prompt',
    async () => {
      // The 500 pins come from the start's own local activity (loadToolSnapshot, the code every first
      // start runs), called as the workflow calls it; 60 of the runs go through the real workflow.
      const activities = harnessActivities({ ...base, bundles: catalogs.at20! });
      const ids = Array.from({ length: 500 }, (_, i) => `bundles-500-${TAG}-${i}`);
      const pins = new Map<string, BundlePin>();
      for (const id of ids) {
        const snapshot = await activities.loadToolSnapshot({
          names: ['order.read'],
          bundleSlots: { workflowId: id, profile: 'support.answer@v1', policy: 'read_only@v1' },
        });
        pins.set(id, snapshot.bundles!.pin);
      }
      const candidates = [...pins.values()].filter((p) => p.arm === 'candidate').length;
      console.log(`rollout at 20 %: ${candidates} of 500 new runs pinned the candidate prompt`);
      // Binomial(500, 0.2): mean 100, standard deviation 8.9; within 3 standard deviations.
      expect(candidates).toBeGreaterThanOrEqual(73);
      expect(candidates).toBeLessThanOrEqual(127);

      const stopA = await worker('a20', catalogs.at20);
      const real = ids.slice(0, REAL_RUNS);
      const results = await pool(
        real,
        20,
        async (id) => (await (await start(id)).result()) as AgentRunResult,
      );
      expect(results.every((r) => r.status === 'succeeded')).toBe(true);
      let realCandidates = 0;
      for (const id of real) {
        const pin = await pinOf(base, id);
        // Recorded by the run (run.created), and the very pin the start's activity gives for its id.
        expect(pin).toEqual(pins.get(id));
        expect(pin).toMatchObject({ rollout: ROLLOUT_ID, candidatePercent: 20 });
        const want = pin!.arm === 'candidate' ? 'support-prompt@v2' : 'support-prompt@v1';
        expect(pin!.prompt).toMatchObject({ key: want, target: 'support.answer@v1' });
        if (pin!.arm === 'candidate') realCandidates++;
        // What the model was sent: the arm's instructions, never the other arm's or the profile's own.
        const sent = JSON.stringify(await base.store.listMessageGroups(id));
        expect(sent).toContain(pin!.arm === 'candidate' ? CANDIDATE_TEXT : STABLE_TEXT);
        expect(sent).not.toContain(pin!.arm === 'candidate' ? STABLE_TEXT : CANDIDATE_TEXT);
        expect(sent).not.toContain('Answer the customer using the read tools.');
      }
      console.log(`real runs: ${realCandidates} of ${REAL_RUNS} pinned the candidate prompt`);
      expect(realCandidates).toBeGreaterThan(0);
      // With all 500 through the workflow, the count from the runs' own pins is the count above.
      if (REAL_RUNS === 500) expect(realCandidates).toBe(candidates);
      await stopA();
    },
    600_000 + REAL_RUNS * 2_000,
  );

  /** A run that keeps calling the held model route, continuing as new every 60 events, until 16 model calls. */
  const startEndless = (id: string) =>
    start(id, {
      modelRoute: 'gated/endless',
      continueAsNewAfterEvents: 60,
      budget: {
        maxSteps: 1000,
        maxModelCalls: 16,
        maxToolCalls: 1000,
        maxDuplicateCalls: 1000,
        maxStepsWithoutProgress: 1000,
      },
    });

  it('a run in flight keeps its candidate pin when the rollout goes to 0 %, across continue-as-new; new runs get none', async () => {
    const stopA = await worker('a20-inflight', catalogs.at20);
    const [id] = idsIn('bundles-inflight', 'candidate', 1);
    gated.close();
    const handle = await startEndless(id!);
    await until('the first model call', () => (gated.refused > 0 ? true : undefined));
    expect((await pinOf(base, id!))?.arm).toBe('candidate');
    // The rollout goes to 0 %: the old worker drains (its held call ends), one with the new config takes
    // over (one worker per task queue and process: SDK 1.24 refuses two).
    await swap(stopA, 'b0', catalogs.at0);
    // New runs, even those the candidate got at 20 %, now all pin the stable prompt.
    const formerCandidates = idsIn('bundles-after', 'candidate', 8);
    for (const newId of formerCandidates) {
      const h = await start(newId);
      expect(((await h.result()) as AgentRunResult).status).toBe('succeeded');
      const pin = await pinOf(base, newId);
      expect(pin).toMatchObject({ arm: 'stable', candidatePercent: 0, prompt: { key: 'support-prompt@v1' } });
      expect(pin!.bucket).toBeLessThan(2000);
    }
    const result = (await t.client.workflow.getHandle(handle.workflowId).result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    const runs = await executionsOf(t, id!);
    expect(runs.length).toBeGreaterThan(1);
    // Every later generation carried the candidate pin and was served its content through the pin.
    for (const runId of runs) {
      const execution = t.client.workflow.getHandle(id!, runId);
      const carried = await carriedPinOf(execution);
      if (carried) expect(carried).toMatchObject({ arm: 'candidate', prompt: { key: 'support-prompt@v2' } });
    }
    const groups = JSON.stringify(await base.store.listMessageGroups(id!));
    expect(groups).toContain(CANDIDATE_TEXT);
    expect(groups).not.toContain(STABLE_TEXT);
  }, 180_000);

  it('a worker that lacks the pinned version, or has other content under it, fails the workflow task (bundle.not_found, bundle.changed); a worker with it finishes the run', async () => {
    const stopA = await worker('a20-refuse', catalogs.at20);
    const [id] = idsIn('bundles-refuse', 'candidate', 1);
    gated.close();
    const handle = await startEndless(id!);
    await until('the first model call', () => (gated.refused > 0 ? true : undefined));
    // Only a worker without support-prompt@v2 is left when the run continues as new.
    const stopMissing = await swap(stopA, 'missing', catalogs.missing);
    const failure = await until('a refused workflow task', async () => {
      const runs = await executionsOf(t, id!);
      for (const runId of runs) {
        const messages = await taskFailures(t.client.workflow.getHandle(id!, runId));
        const found = messages.find((m) => m.startsWith('bundle.not_found'));
        if (found) return found;
      }
      return undefined;
    });
    expect(failure).toContain('support-prompt@v2');
    // A worker whose v2 has other content refuses it too: the start's activity on such a worker fails
    // with the typed code the workflow turns into the same task failure. (Temporal records only the
    // first failure of a retried workflow task, so this is asked of the activity directly.)
    const carried = await until('the carried pin', async () => {
      for (const runId of await executionsOf(t, id!)) {
        const pin = await carriedPinOf(t.client.workflow.getHandle(id!, runId));
        if (pin) return pin;
      }
      return undefined;
    });
    expect(carried).toMatchObject({ arm: 'candidate', prompt: { key: 'support-prompt@v2' } });
    const onChanged = harnessActivities({ ...base, bundles: catalogs.changed! });
    const refusal = await onChanged.loadToolSnapshot({ names: ['order.read'], bundlePin: carried }).then(
      () => undefined,
      (err: unknown) => err as { type?: string; message: string; nonRetryable?: boolean },
    );
    expect(refusal).toMatchObject({ type: 'bundle.changed', nonRetryable: true });
    expect(refusal?.message).toContain('support-prompt@v2');
    // Never a fallback: nothing ran on the stable prompt; a worker with the pinned version finishes it.
    await swap(stopMissing, 'b0-finish', catalogs.at0);
    const result = (await t.client.workflow.getHandle(handle.workflowId).result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    const groups = JSON.stringify(await base.store.listMessageGroups(id!));
    expect(groups).toContain(CANDIDATE_TEXT);
    expect(groups).not.toContain(STABLE_TEXT);
  }, 240_000);

  it('a policy bundle fills the run policy with its rules data: the pinned rules judge the tool calls', async () => {
    await worker('policy', catalogs.policy);
    const [id] = idsIn('bundles-policy', 'stable', 1);
    const handle = await start(id!, {
      modelRoute: 'gated/endless',
      budget: { maxSteps: 100, maxModelCalls: 2, maxToolCalls: 100, maxDuplicateCalls: 100 },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect({ status: result.status, reason: result.terminalReason }).toMatchObject({
      status: 'budget_exhausted',
    });
    expect(result.versions.policy).toBe('read_only@v1');
    // HARNESS_RECORD_HISTORIES=<dir> keeps it as a replay fixture: decisions that name their rules.
    await recordFixtureIfAsked(t.client, id!, 'support-policy-bundle-decision-rules-v1');
    const pin = await pinOf(base, id!);
    expect(pin).toMatchObject({
      rollout: 'read-rules',
      arm: 'stable',
      policy: { key: 'read-rules@v1', target: 'read_only@v1' },
    });
    expect(pin!.prompt).toBeUndefined();
    const events = (await base.store.listEvents(id!)) as EventRow[];
    const decided = events.filter((e) => e.type === 'policy.decided' && e.data.tool === 'order.read');
    expect(decided.length).toBeGreaterThan(0);
    for (const d of decided.filter((e) => e.data.stage === 'dispatch')) {
      expect(d.data).toMatchObject({ decision: 'deny', policyVersion: 'read_only@v1' });
      expect(d.data.reasonCodes).toContain('support.reads_frozen');
      // The decision names the rules that decided: the pinned bundle, with its content digest.
      expect(d.data.rules).toEqual({
        source: 'bundle',
        bundle: 'read-rules@v1',
        digest: pin!.policy!.digest,
        policy: 'read_only@v1',
      });
    }
    expect(decided.some((e) => e.data.stage === 'dispatch')).toBe(true);
    // The profile's own instructions: the arm has no prompt bundle for it.
    expect(JSON.stringify(await base.store.listMessageGroups(id!))).toContain(
      'Answer the customer using the read tools.',
    );
  }, 120_000);
});
