import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/devserver/config.js';
import { loadHistoryFixtures } from '../../src/worker/history-fixtures.js';
import { MARKER_FREE_START, MARKER_FREE_START_MEMO_KEY } from '../../src/contract/visibility.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import {
  BASELINE_V2_PATCH,
  DECISION_RULES_PATCH,
  INVALID_TOOL_CALLS_PATCH,
  HUMAN_REQUEST_EXPIRY_PATCH,
  MODEL_CONTEXT_REF_PATCH,
  REQUEST_MORE_INFO_PATCH,
  TOOL_DEFINITION_PIN_PATCH,
  VERSIONED_FACTS_PATCH,
  CONTEXT_PRIORITY_PATCH,
  FAST_PATH_PATCH,
  STEP_CONTRACTS_PATCH,
  DELIVERED_OUTCOME_PATCH,
  WORKER_REFUSAL_PATCH,
  RUN_SEAL_PATCH,
  LEAN_FRAME_PATCH,
  CONFIG_PIN_PATCH,
  START_TOKEN_ACCEPTED_PATCH,
  STEP_FORMAT_V3_PATCH,
  FAST_MODEL_PATCH,
  TRUST_SCOPE_PATCH,
} from '../../src/workflows/temporal/run-patches.js';
import { refundRunInput, type HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { testRunId } from '../support/run-id.js';
import {
  activityNames,
  createStartFeatureFixture,
  finishedRun,
  policySearchScript,
  replayHistory,
  withStartMemo,
  type FinishedRun,
  type History,
} from '../support/start-features.js';

/** One search of the refund policy, then the answer: a model activity, a tool activity, a model activity. */
const SCRIPT = policySearchScript(['refund window']);

const INPUT = refundRunInput({
  profile: { name: 'support.answer', version: 'v1' },
  modelRoute: 'scripted/marker-free',
  task: { message: 'how long is the refund window?' },
});

/** Whether `history` has any `TemporalChangeVersion` upsert (the SDK core writes one with each marker). */
function hasChangeVersionUpsert(history: History): boolean {
  return (history.events ?? []).some(
    (e) =>
      e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[
        'TemporalChangeVersion'
      ] !== undefined,
  );
}

/** `history` with its start memo's marker-free entry set (`value`) or removed (`undefined`). */
function withMarkerFreeMemo(history: History, value: string | undefined): History {
  return withStartMemo(history, MARKER_FREE_START_MEMO_KEY, value);
}

/**
 * The third baseline (docs/history-cost.md): a run started by `startAgentRun` asks for a marker-free
 * start in its memo and records no baseline marker, yet every history it can have replays: its own,
 * and one whose first workflow task an older worker took (which ignores the memo and records the
 * second baseline's marker).
 */
describe('a marker-free start (real server)', () => {
  let h: HarnessFixture;
  let markerFree: FinishedRun;
  let marked: FinishedRun;

  beforeAll(async () => {
    ({ h, run: markerFree } = await createStartFeatureFixture('marker-free', {
      scripts: { 'scripted/marker-free': SCRIPT },
      input: INPUT,
    }));
    // The same run started without the memo, as a starter from before this change (or a plain
    // Temporal client) does.
    const raw = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: testRunId('marker-free-raw'),
      args: [INPUT],
    });
    marked = await finishedRun(raw);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('startAgentRun asks for it in the start memo', async () => {
    const description = await markerFree.handle.describe();
    expect(description.memo?.[MARKER_FREE_START_MEMO_KEY]).toBe(MARKER_FREE_START);
  });

  it('records no patch marker and no TemporalChangeVersion upsert; a start without the memo records the baseline marker', async () => {
    const free = await historyOf(markerFree.handle);
    expect(free.filter((e) => e.patchId !== undefined)).toEqual([]);
    expect(hasChangeVersionUpsert(markerFree.history)).toBe(false);

    const withMarker = await historyOf(marked.handle);
    // Without the memo the run asks the baseline, and the later features (harnessFeatures) at its start.
    expect(withMarker.filter((e) => e.patchId !== undefined).map((e) => e.patchId)).toEqual([
      BASELINE_V2_PATCH,
      TRUST_SCOPE_PATCH,
      INVALID_TOOL_CALLS_PATCH,
      DECISION_RULES_PATCH,
      TOOL_DEFINITION_PIN_PATCH,
      MODEL_CONTEXT_REF_PATCH,
      REQUEST_MORE_INFO_PATCH,
      HUMAN_REQUEST_EXPIRY_PATCH,
      VERSIONED_FACTS_PATCH,
      CONTEXT_PRIORITY_PATCH,
      FAST_PATH_PATCH,
      STEP_CONTRACTS_PATCH,
      DELIVERED_OUTCOME_PATCH,
      WORKER_REFUSAL_PATCH,
      RUN_SEAL_PATCH,
      LEAN_FRAME_PATCH,
      CONFIG_PIN_PATCH,
      START_TOKEN_ACCEPTED_PATCH,
      STEP_FORMAT_V3_PATCH,
      FAST_MODEL_PATCH,
    ]);
    expect(hasChangeVersionUpsert(marked.history)).toBe(true);
    // Otherwise the same commands: the same events once the markers and the upserts after them are left out.
    const markerOrUpsert = withMarker.map(
      (e, i) =>
        e.patchId !== undefined ||
        (e.type === 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES' &&
          withMarker[i - 1]?.patchId !== undefined),
    );
    expect(withMarker[withMarker.findIndex((e) => e.patchId === BASELINE_V2_PATCH) + 1]?.type).toBe(
      'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
    );
    const types = (entries: { type: string }[]) => entries.map((e) => e.type);
    expect(types(free)).toEqual(types(withMarker.filter((_, i) => !markerOrUpsert[i])));
  });

  it('takes the same steps: the same activities with the same names', async () => {
    expect(await activityNames(markerFree.handle)).toEqual(['callModelV3', 'runToolV3', 'callModelV3']);
    expect(await activityNames(marked.handle)).toEqual(await activityNames(markerFree.handle));
  });

  it('replays its own history', async () => {
    await replayHistory(markerFree.history, markerFree.handle.workflowId);
  });

  it("replays a run whose first task an older worker took (the memo asks, the history has the older worker's marker)", async () => {
    await replayHistory(withMarkerFreeMemo(marked.history, MARKER_FREE_START), marked.handle.workflowId);
  });

  it('replays a run whose first task a worker of the first baseline took (its marker decides)', async () => {
    const fixtures = loadHistoryFixtures(join(projectRoot, 'test', 'fixtures', 'histories'));
    const first = fixtures.filter((f) => f.name.includes('-baseline-'));
    expect(first.length).toBeGreaterThan(0);
    for (const f of first)
      await replayHistory(withMarkerFreeMemo(f.history, MARKER_FREE_START), f.workflowId);
  });

  it('the memo decides: the marker-free history without it does not replay', async () => {
    await expect(
      replayHistory(withMarkerFreeMemo(markerFree.history, undefined), markerFree.handle.workflowId),
    ).rejects.toMatchObject({ name: 'DeterminismViolationError' });
  });

  it('a memo value it does not know is ignored (the run records the marker)', async () => {
    const other = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: testRunId('marker-free-other'),
      args: [INPUT],
      memo: { [MARKER_FREE_START_MEMO_KEY]: 'v99' },
    });
    expect(((await other.result()) as AgentRunResult).status).toBe('succeeded');
    expect((await historyOf(other)).filter((e) => e.patchId !== undefined).map((e) => e.patchId)).toEqual([
      BASELINE_V2_PATCH,
      TRUST_SCOPE_PATCH,
      INVALID_TOOL_CALLS_PATCH,
      DECISION_RULES_PATCH,
      TOOL_DEFINITION_PIN_PATCH,
      MODEL_CONTEXT_REF_PATCH,
      REQUEST_MORE_INFO_PATCH,
      HUMAN_REQUEST_EXPIRY_PATCH,
      VERSIONED_FACTS_PATCH,
      CONTEXT_PRIORITY_PATCH,
      FAST_PATH_PATCH,
      STEP_CONTRACTS_PATCH,
      DELIVERED_OUTCOME_PATCH,
      WORKER_REFUSAL_PATCH,
      RUN_SEAL_PATCH,
      LEAN_FRAME_PATCH,
      CONFIG_PIN_PATCH,
      START_TOKEN_ACCEPTED_PATCH,
      STEP_FORMAT_V3_PATCH,
      FAST_MODEL_PATCH,
    ]);
  });
});
