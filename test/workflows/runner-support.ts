import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import type { ModelScript, ScriptEntry } from '../../src/activities/model/scripted-script.js';

/** One scripted tool call: a response with that call only. */
export function callAt(
  step: number,
  name: string,
  args: Record<string, unknown>,
  usage?: { inputTokens: number; outputTokens: number },
): ScriptEntry {
  return {
    match: { step },
    response: { text: '', toolCalls: [{ name, version: 'v1', args }], ...(usage ? { usage } : {}) },
  };
}

/** A final text answer at `step`. */
export function textAt(step: number, text: string): ScriptEntry {
  return { match: { step }, response: { text, toolCalls: [] } };
}

/** A script that keeps calling `policy.search.refund` with a new query at every step (no duplicates). */
export function endlessSearch(
  steps = 40,
  usage?: { inputTokens: number; outputTokens: number },
): ModelScript {
  return {
    entries: Array.from({ length: steps }, (_, i) =>
      callAt(i, 'policy.search.refund', { query: `refund ${i}` }, usage),
    ),
    fallback: { text: 'no more steps scripted', toolCalls: [] },
  };
}

/** Activities scheduled in a workflow's history: activity type and, for runTool, the tool name. */
export async function scheduledActivities(
  handle: WorkflowHandle,
): Promise<{ type: string; tool?: string }[]> {
  const history = await handle.fetchHistory();
  const out: { type: string; tool?: string }[] = [];
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (!a) continue;
    const type = a.activityType?.name ?? '';
    const payload = a.input?.payloads?.[0];
    const input = payload ? defaultPayloadConverter.fromPayload<{ tool?: string }>(payload) : {};
    out.push(input.tool !== undefined ? { type, tool: input.tool } : { type });
  }
  return out;
}

/** The workflow's failure, as the client sees it (`WorkflowFailedError` with an ApplicationFailure cause). */
export async function failureOf(
  handle: WorkflowHandle,
): Promise<{ type?: string; nonRetryable?: boolean; message: string }> {
  try {
    await handle.result();
  } catch (err) {
    const cause = (err as { cause?: { type?: string; nonRetryable?: boolean; message: string } }).cause;
    if (cause) return cause;
    throw err;
  }
  throw new Error('the workflow did not fail');
}
