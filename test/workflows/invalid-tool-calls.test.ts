import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';

const SEARCH = { name: 'policy.search.refund', version: 'v1' } as const;

/**
 * Malformed arguments first; the next entry answers only when the request carries the tool error
 * (no fallback: a request without it fails the run with `model.script_no_match`).
 */
const NOT_JSON: ModelScript = {
  entries: [
    {
      match: { step: 0 },
      response: {
        toolCalls: [{ ...SEARCH, id: 'bad', args: {}, rawArguments: '{"query": "refund' }],
        text: '',
      },
    },
    {
      match: { step: 1, contains: 'tool.arguments_not_json' },
      response: { text: '', toolCalls: [{ ...SEARCH, id: 'good', args: { query: 'refund window' } }] },
    },
    {
      match: { step: 2 },
      response: { text: 'Refunds are possible within the refund window.', toolCalls: [] },
    },
  ],
};

/** A write the read-only policy never offers (refund.create), then an answer once told. */
const NOT_OFFERED: ModelScript = {
  entries: [
    {
      match: { step: 0 },
      response: {
        text: '',
        toolCalls: [
          { id: 'w', name: 'refund.create', version: 'v1', args: { orderId: 'A1', amountCents: 100 } },
        ],
      },
    },
    {
      match: { step: 1, contains: 'tool.not_offered' },
      response: { text: 'I cannot create refunds here.', toolCalls: [] },
    },
  ],
};

/** A model that only ever sends the same malformed call. */
const GARBAGE: ModelScript = {
  entries: [],
  fallback: { text: '', toolCalls: [{ ...SEARCH, id: 'bad', args: {}, rawArguments: '{"query": ' }] },
};

function replay(handle: WorkflowHandle): Promise<void> {
  return handle
    .fetchHistory()
    .then((history) =>
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') } },
        history,
        handle.workflowId,
      ),
    );
}

/**
 * Issue 36: a tool call with malformed JSON arguments or a tool name the model was not offered is a
 * tool error the model reads and answers, instead of the end of the run (docs/runner.md, "Invalid
 * tool calls"); nothing runs for it, and a model that keeps sending garbage ends on the existing guards.
 */
describe('invalid tool calls (real server)', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('invalid-tool-calls', {
      scripts: {
        'scripted/invalid-json': NOT_JSON,
        'scripted/not-offered': NOT_OFFERED,
        'scripted/garbage': GARBAGE,
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const start = (route: string) =>
    h.start({
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: route,
      task: { message: 'How long is the refund window?' },
    });
  const activities = async (handle: WorkflowHandle) =>
    (await historyOf(handle)).flatMap((e) => (e.activityType ? [e.activityType] : []));
  const toolFailures = async (handle: WorkflowHandle) =>
    (await h.composition.store.listEvents(handle.workflowId))
      .filter((e) => e.type === 'tool.failed')
      .map((e) => e.data.errorCode);

  it('malformed arguments: the model is told, calls again and the run succeeds', async () => {
    const handle = await start('scripted/invalid-json');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status, JSON.stringify(result.terminalReason)).toBe('succeeded');
    expect(result.output).toBe('Refunds are possible within the refund window.');
    // One tool activity: the valid call. Nothing was scheduled for the malformed one.
    expect(await activities(handle)).toEqual(['callModelV3', 'callModelV3', 'runToolV3', 'callModelV3']);
    expect(await toolFailures(handle)).toEqual(['tool.arguments_not_json']);
    // HARNESS_RECORD_HISTORIES=<dir> keeps it as a replay fixture: a run that reported an invalid call.
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'support-invalid-tool-calls-v1');
    const groups = await h.composition.store.listMessageGroups(handle.workflowId);
    const first = groups[0]!.messages[0] as { output: { invalidToolCalls?: unknown[] } };
    expect(first.output.invalidToolCalls).toEqual([
      expect.objectContaining({
        id: 'bad',
        name: 'policy_search_refund__v1',
        code: 'tool.arguments_not_json',
      }),
    ]);
    await replay(handle);
  });

  it('a tool the policy did not offer (a write): nothing runs, the model is told and answers', async () => {
    const handle = await start('scripted/not-offered');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status, JSON.stringify(result.terminalReason)).toBe('succeeded');
    expect(await activities(handle)).toEqual(['callModelV3', 'callModelV3']);
    expect(await toolFailures(handle)).toEqual(['tool.not_offered']);
    await replay(handle);
  });

  it('a model that keeps sending the same garbage ends with budget.duplicate_call, no tool activity', async () => {
    const handle = await start('scripted/garbage');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('budget_exhausted');
    expect(result.terminalReason?.code).toBe('budget.duplicate_call');
    expect(await activities(handle)).toEqual(['callModelV3', 'callModelV3', 'callModelV3']);
  });
});
