import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { START_FEATURES_MEMO_KEY } from '../../src/contract/visibility.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { createHarnessFixture, type HarnessFixture } from './harness.js';
import { historyOf } from './history.js';
import { recordFixtureIfAsked } from './record-fixture.js';

/**
 * What the start-feature tests share (the marker-free start, the lean frame, the third step format):
 * a harness whose first run is started by `startAgentRun` with the start features in its memo and
 * has succeeded, its history, and the edits of a history's start memo that tell, on replay, whether
 * the memo decides.
 */

/** A workflow's history as the client fetches it. */
export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** A finished run: its handle and its whole history. */
export interface FinishedRun {
  readonly handle: WorkflowHandle;
  readonly history: History;
}

/**
 * A `support.answer` script: one search of the refund policy per query (the model's step `i` asks
 * `queries[i]`), then the answer `final answer`.
 */
export function policySearchScript(queries: readonly string[]): ModelScript {
  return {
    entries: queries.map((query, step) => ({
      match: { step },
      response: {
        text: '',
        toolCalls: [{ name: 'policy.search.refund', version: 'v1', args: { query } }],
      },
    })),
    fallback: { text: 'final answer', toolCalls: [] },
  };
}

/** How {@link createStartFeatureFixture} builds its harness and starts its first run. */
export interface StartFeatureFixtureOptions {
  /** The scripted model routes the worker knows, by name. */
  readonly scripts: Record<string, ModelScript>;
  /** The first run's input (`refundRunInput` fills in the rest). */
  readonly input: Partial<AgentRunInput> & Pick<AgentRunInput, 'task'>;
  /** The first run's workflow id; absent: a fresh one of the fixture's name. */
  readonly workflowId?: string;
  /** The worker's env (drill knobs). */
  readonly env?: Record<string, string>;
  /** The worker's options (its attestation key). */
  readonly worker?: Parameters<typeof createHarnessFixture>[2];
  /** With `HARNESS_RECORD_HISTORIES` set, keep the first run's history as this replay fixture. */
  readonly fixture?: string;
}

/**
 * A harness fixture on `name` and its first run, started by `startAgentRun` (so with the start
 * features in its memo), awaited and asserted `succeeded`, with its history.
 * @throws the assertion's error when the run ends otherwise; the fixture's errors (server, worker).
 */
export async function createStartFeatureFixture(
  name: string,
  o: StartFeatureFixtureOptions,
): Promise<{ h: HarnessFixture; run: FinishedRun }> {
  const h = await createHarnessFixture(
    name,
    { scripts: o.scripts, ...(o.env !== undefined ? { env: o.env } : {}) },
    o.worker,
  );
  const handle = await h.start(o.input, o.workflowId);
  const run = await finishedRun(handle);
  if (o.fixture !== undefined) await recordFixtureIfAsked(h.t.client, handle.workflowId, o.fixture);
  return { h, run };
}

/**
 * The run's result asserted `succeeded`, then its whole history.
 * @throws the assertion's error when the run ends otherwise or fails.
 */
export async function finishedRun(handle: WorkflowHandle): Promise<FinishedRun> {
  expect(((await handle.result()) as AgentRunResult).status).toBe('succeeded');
  return { handle, history: await handle.fetchHistory() };
}

/** `history` with its start memo's `key` set to `value`, or removed when `value` is `undefined`. */
export function withStartMemo(history: History, key: string, value: unknown): History {
  const copy = structuredClone(history);
  const started = copy.events![0]!.workflowExecutionStartedEventAttributes!;
  const fields = { ...(started.memo?.fields ?? {}) };
  if (value === undefined) delete fields[key];
  else fields[key] = defaultPayloadConverter.toPayload(value);
  started.memo = { fields };
  return copy;
}

/** `history` with `feature` left out of its start memo's features (the memo must list some). */
export function withoutStartFeature(history: History, feature: string): History {
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const fields = started.memo?.fields ?? {};
  const listed = defaultPayloadConverter.fromPayload<string[]>(fields[START_FEATURES_MEMO_KEY]!);
  return withStartMemo(
    history,
    START_FEATURES_MEMO_KEY,
    listed.filter((f) => f !== feature),
  );
}

/**
 * Replay `history` of `workflowId` on the tests' workflow bundle.
 * @throws `DeterminismViolationError` when the workflow code takes other commands.
 */
export function replayHistory(history: History, workflowId: string): Promise<void> {
  return Worker.runReplayHistory(
    { workflowBundle: { codePath: inject('workflowBundlePath') } },
    history,
    workflowId,
  );
}

/** The activity types the run scheduled, in order. */
export async function activityNames(handle: WorkflowHandle): Promise<string[]> {
  return (await historyOf(handle)).flatMap((e) => (e.activityType ? [e.activityType] : []));
}
