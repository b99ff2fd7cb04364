import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { verifyProofBundle } from '../../src/client/proof/verify-bundle.js';
import {
  MARKER_FREE_START,
  MARKER_FREE_START_MEMO_KEY,
  START_FEATURES,
  START_FEATURES_MEMO_KEY,
} from '../../src/contract/visibility.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { STEP_FORMAT_V3_PATCH } from '../../src/workflows/temporal/run-patches.js';
import { testAttestation } from '../support/attestation.js';
import { decide } from '../support/decisions.js';
import {
  createHarnessFixture,
  refundRunInput,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { testRunId } from '../support/run-id.js';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** Two searches of the refund policy, then the answer: three model calls and two tool calls. */
const SCRIPT: ModelScript = {
  entries: [0, 1].map((step) => ({
    match: { step },
    response: {
      text: '',
      toolCalls: [{ name: 'policy.search.refund', version: 'v1', args: { query: `refund window ${step}` } }],
    },
  })),
  fallback: { text: 'final answer', toolCalls: [] },
};

const INPUT = refundRunInput({
  profile: { name: 'support.answer', version: 'v1' },
  modelRoute: 'scripted/format-v3',
  task: { message: 'how long is the refund window?' },
});

/** `history` with the third step format left out of its start memo's features. */
function withoutFormatV3(history: History): History {
  const copy = structuredClone(history);
  const started = copy.events![0]!.workflowExecutionStartedEventAttributes!;
  const fields = { ...(started.memo?.fields ?? {}) };
  const listed = defaultPayloadConverter.fromPayload<string[]>(fields[START_FEATURES_MEMO_KEY]!);
  fields[START_FEATURES_MEMO_KEY] = defaultPayloadConverter.toPayload(
    listed.filter((f) => f !== STEP_FORMAT_V3_PATCH),
  );
  started.memo = { fields };
  return copy;
}

function replay(history: History, workflowId: string): Promise<void> {
  return Worker.runReplayHistory(
    { workflowBundle: { codePath: inject('workflowBundlePath') } },
    history,
    workflowId,
  );
}

/** Bytes of the step activities' inputs in a history (what the format changes). */
function stepInputBytes(history: History): number {
  let n = 0;
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a && /^(callModel|runTool)V[23]$/.test(a.activityType?.name ?? ''))
      n += a.input?.payloads?.[0]?.data?.length ?? 0;
  }
  return n;
}

/**
 * The third step format (docs/history-cost.md, "Bytes per step: the third step format"): runs
 * started by `startAgentRun` call `callModelV3` and `runToolV3` with smaller inputs, and the evidence
 * store holds exactly what the second format stores.
 */
describe('the third step format (agent-run-step-format-v3) on the real server', () => {
  let h: HarnessFixture;
  const attestation = testAttestation('worker-format-v3');
  let v3: { handle: WorkflowHandle; history: History };
  let v2: { handle: WorkflowHandle; history: History };

  beforeAll(async () => {
    h = await createHarnessFixture(
      'format-v3',
      { scripts: { 'scripted/format-v3': SCRIPT } },
      { attestation: { ...attestation.signer, everyEvents: 5 } },
    );
    // Ids of the same length: the scripted model's token counts follow the request's size.
    const started = await h.start(INPUT, testRunId('format-v3'));
    expect(((await started.result()) as AgentRunResult).status).toBe('succeeded');
    v3 = { handle: started, history: await started.fetchHistory() };
    await recordFixtureIfAsked(h.t.client, started.workflowId, 'support-step-format-v3-v1');
    // The same run on the second format: a starter of the previous release (its features without this one).
    const previous = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: testRunId('format-v2'),
      args: [INPUT],
      memo: {
        [MARKER_FREE_START_MEMO_KEY]: MARKER_FREE_START,
        [START_FEATURES_MEMO_KEY]: START_FEATURES.filter((f) => f !== STEP_FORMAT_V3_PATCH),
      },
    });
    expect(((await previous.result()) as AgentRunResult).status).toBe('succeeded');
    v2 = { handle: previous, history: await previous.fetchHistory() };
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('startAgentRun asks for it in the memo; the run calls the third names and records no marker', async () => {
    expect((await v3.handle.describe()).memo?.[START_FEATURES_MEMO_KEY]).toContain(STEP_FORMAT_V3_PATCH);
    const activities = async (handle: WorkflowHandle) =>
      (await historyOf(handle)).flatMap((e) => (e.activityType ? [e.activityType] : []));
    expect(await activities(v3.handle)).toEqual([
      'callModelV3',
      'runToolV3',
      'callModelV3',
      'runToolV3',
      'callModelV3',
    ]);
    expect(await activities(v2.handle)).toEqual([
      'callModelV2',
      'runToolV2',
      'callModelV2',
      'runToolV2',
      'callModelV2',
    ]);
    expect((await historyOf(v3.handle)).filter((e) => e.patchId !== undefined)).toEqual([]);
    // The same commands otherwise.
    const types = async (handle: WorkflowHandle) => (await historyOf(handle)).map((e) => e.type);
    expect(await types(v3.handle)).toEqual(await types(v2.handle));
  });

  it('stores the same events as the second format (up to the run id, times and digests)', async () => {
    const normalized = async (runId: string) =>
      JSON.stringify(await h.composition.store.listEvents(runId))
        .replaceAll(runId, 'RUN')
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'TIME')
        .replace(/sha256:[0-9a-f]{64}/g, 'DIGEST');
    const stored = await normalized(v3.handle.workflowId);
    expect(stored).toContain('"tool.authorized"');
    expect(stored).toEqual(await normalized(v2.handle.workflowId));
  });

  it('sends fewer bytes per step', () => {
    const three = stepInputBytes(v3.history);
    const two = stepInputBytes(v2.history);
    console.info(
      `step activity inputs of a 2-tool support run: ${two} bytes (second format), ${three} (third)`,
    );
    // Per step (a model and a tool call) at least 400 bytes less.
    expect(two - three).toBeGreaterThan(2 * 400);
  });

  it('replays its own history; without the feature in its memo it does not (the memo decides)', async () => {
    await replay(v3.history, v3.handle.workflowId);
    await replay(v2.history, v2.handle.workflowId);
    await expect(replay(withoutFormatV3(v3.history), v3.handle.workflowId)).rejects.toMatchObject({
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
    const names = (await historyOf(handle)).flatMap((e) => (e.activityType ? [e.activityType] : []));
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
