import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { verifyProofBundle } from '../../src/client/proof/verify-bundle.js';
import type { CompactModelInputV3, CompactToolInputV3 } from '../../src/contract/activity-interfaces.js';
import { modelCallDerivation, toolCallDerivation } from '../../src/contract/packed-events-by-ref.js';
import { unpackEvents } from '../../src/contract/packed-events.js';
import { START_FEATURES_MEMO_KEY } from '../../src/contract/visibility.js';
import { sha256Digest } from '../../src/activities/digest.js';
import { restorePackedEvents } from '../../src/activities/run-header.js';
import { restoreModelInputV3, restoreToolInputV3 } from '../../src/activities/step-input-v3.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { STEP_FORMAT_V3_PATCH } from '../../src/workflows/temporal/run-patches.js';
import { testAttestation } from '../support/attestation.js';
import { decide } from '../support/decisions.js';
import { refundRunInput, waitForState, type HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { testRunId } from '../support/run-id.js';
import {
  activityNames,
  createStartFeatureFixture,
  policySearchScript,
  replayHistory,
  withoutStartFeature,
  type FinishedRun,
  type History,
} from '../support/start-features.js';

/** Two searches of the refund policy, then the answer: three model calls and two tool calls. */
const SCRIPT = policySearchScript(['refund window 0', 'refund window 1']);

const INPUT = refundRunInput({
  profile: { name: 'support.answer', version: 'v1' },
  modelRoute: 'scripted/format-v3',
  task: { message: 'how long is the refund window?' },
});

/**
 * The fields a run of this release leaves out of every step input (compact-step-input-v3.ts; `toolKeys`
 * only when the model sees every pinned tool).
 */
const DEFAULTED = [
  'runId',
  'configPin',
  'workerRefusal',
  'recordFailedAttempts',
  'definitionDigest',
  'contextOrder',
  'invalidToolCalls',
  'purpose',
  'modelRoute',
];

/** The step activities' inputs in a history, decoded. */
function stepInputs(history: History): { type: string; input: Record<string, unknown> }[] {
  return (history.events ?? []).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    const type = a?.activityType?.name ?? '';
    const payload = a?.input?.payloads?.[0];
    if (!payload || !/^(callModel|runTool)V3$/.test(type)) return [];
    return [{ type, input: defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload) }];
  });
}

/**
 * The third step format (docs/history-cost.md, "Bytes per step: the third step format"): runs
 * started by `startAgentRun` call `callModelV3` and `runToolV3` with smaller inputs, and the evidence
 * store holds exactly what the second format stores.
 */
describe('the third step format (agent-run-step-format-v3) on the real server', () => {
  let h: HarnessFixture;
  const attestation = testAttestation('worker-format-v3');
  let v3: FinishedRun;

  beforeAll(async () => {
    ({ h, run: v3 } = await createStartFeatureFixture('format-v3', {
      scripts: { 'scripted/format-v3': SCRIPT },
      worker: { attestation: { ...attestation.signer, everyEvents: 5 } },
      input: INPUT,
      // Ids of the same length: the scripted model's token counts follow the request's size.
      workflowId: testRunId('format-v3'),
      fixture: 'support-step-format-v3-v1',
    }));
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('startAgentRun asks for it in the memo; the run calls the third names and records no marker', async () => {
    expect((await v3.handle.describe()).memo?.[START_FEATURES_MEMO_KEY]).toContain(STEP_FORMAT_V3_PATCH);
    expect(await activityNames(v3.handle)).toEqual([
      'callModelV3',
      'runToolV3',
      'callModelV3',
      'runToolV3',
      'callModelV3',
    ]);
    expect((await historyOf(v3.handle)).filter((e) => e.patchId !== undefined)).toEqual([]);
  });

  it("leaves the run's defaults out of the history, and its inputs restore to exactly the stored events", async () => {
    const runId = v3.handle.workflowId;
    const store = h.composition.store;
    const restored: unknown[] = [];
    for (const { type, input } of stepInputs(v3.history)) {
      for (const k of DEFAULTED) expect(input).not.toHaveProperty(k);
      if (type === 'callModelV3') {
        const full = await restoreModelInputV3(store, input as unknown as CompactModelInputV3, runId);
        restored.push(
          ...unpackEvents(await restorePackedEvents(store, full.events, modelCallDerivation(full))),
        );
      } else {
        const full = await restoreToolInputV3(
          store,
          input as unknown as CompactToolInputV3,
          runId,
          sha256Digest,
        );
        restored.push(
          ...unpackEvents(await restorePackedEvents(store, full.events, toolCallDerivation(full))),
        );
      }
    }
    const stored = (await store.listEvents(runId)).map((e) => e.envelope);
    expect(restored.length).toBeGreaterThan(10);
    expect(restored).toEqual(stored.slice(0, restored.length));
    // The goal steps' ids and defaults were left out, and came back.
    expect(stored.filter((e) => e.type === 'tool.authorized').map((e) => e.stepId)).toEqual([
      'tool-1',
      'tool-2',
    ]);
  });

  it('replays its own history; without the feature in its memo it does not (the memo decides)', async () => {
    await replayHistory(v3.history, v3.handle.workflowId);
    await expect(
      replayHistory(withoutStartFeature(v3.history, STEP_FORMAT_V3_PATCH), v3.handle.workflowId),
    ).rejects.toMatchObject({
      name: 'DeterminismViolationError',
    });
  });

  it('a refund with an approved write: the proof bundle verifies (chain, heads, results in the history)', async () => {
    const handle = await h.start({
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    expect(((await handle.result()) as AgentRunResult).status).toBe('succeeded');
    const names = await activityNames(handle);
    expect(names).toContain('runToolV3');
    expect(names.filter((n) => /V2$/.test(n))).toEqual([]);
    const report = verifyProofBundle(
      await collectProofBundle(h.composition.store, h.t.client, handle.workflowId, attestation.registry),
    );
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-step-format-v3-v1');
  }, 60_000);
});
