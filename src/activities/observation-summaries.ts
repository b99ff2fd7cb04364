import { Context } from '@temporalio/activity';
import type { AnyModelCallActivityInput } from '../contract/activity-interfaces.js';
import { DATA_NOTICE, renderDataBlock } from './context/render.js';
import { summaryArtifactId } from './context/transcript-items.js';
import type { ContextItem } from './context/types.js';
import type { ModelRouter } from './model-router.js';
import { resolveModelRoute } from './resolve-model-route.js';
import { attemptTag } from './attempt-tag.js';
import type { EvidenceStore } from './store/index.js';

/** Summaries the context builder asks for in one call at most; older observations beyond wait for the next call. */
export const MAX_NEW_SUMMARIES_PER_CALL = 8;
/** Most characters of an observation a summarize request carries. */
const MAX_SUMMARIZED_CHARS = 24_000;
/** The most tokens a summary answer may have. */
const SUMMARY_OUTPUT_TOKENS = 120;

/** The instructions of a summarize call (harness text, the system message). */
export const SUMMARIZE_INSTRUCTIONS =
  'Summarise the tool observation in the data block in at most two short sentences: what was called, ' +
  'whether it succeeded, and the key values (ids, statuses, amounts). Report only what the block says. ' +
  DATA_NOTICE;

/** The summarize calls one model call made, and their usage (counted with the call's own). */
export interface SummaryCalls {
  calls: number;
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number;
}

/**
 * The summary of tool item `item`: the stored model artifact when there is one, else a call of
 * purpose `summarize` on the run's summarize route (stored as a model artifact, trust never
 * `verified`), counted in `made`. Undefined when no summary could be made (over
 * {@link MAX_NEW_SUMMARIES_PER_CALL} in this call, or the summarize call failed): the request then
 * sends the reference alone. Only a cancellation is thrown (and the store's errors reading the artifact).
 */
export async function summarizeObservation(
  store: EvidenceStore,
  models: ModelRouter,
  input: AnyModelCallActivityInput,
  item: ContextItem,
  made: SummaryCalls,
): Promise<string | undefined> {
  const id = summaryArtifactId(item.itemId);
  const stored = await store.getArtifact(id);
  const storedText = (stored?.data as { text?: unknown } | undefined)?.text;
  if (typeof storedText === 'string') return storedText;
  if (made.calls >= MAX_NEW_SUMMARIES_PER_CALL) return undefined;
  const ctx = Context.current();
  const routeName = input.summarizeRoute?.route ?? input.modelRoute;
  const digest = input.summarizeRoute ? input.summarizeRoute.digest : input.routeDigest;
  made.calls += 1;
  try {
    const route = resolveModelRoute(models, routeName, digest);
    const block = renderDataBlock({ ...item, content: item.content.slice(0, MAX_SUMMARIZED_CHARS) });
    const out = await route.provider.stream(
      {
        callId: `${input.runId}:m${input.callSeq}:summary:${made.calls}:${attemptTag()}`,
        purpose: 'summarize',
        model: route.model,
        messages: [
          { role: 'system', content: SUMMARIZE_INSTRUCTIONS },
          { role: 'user', content: block },
        ],
        maxOutputTokens: SUMMARY_OUTPUT_TOKENS,
      },
      { signal: ctx.cancellationSignal, onEvent: () => undefined },
    );
    made.usage.inputTokens += out.usage.inputTokens;
    made.usage.outputTokens += out.usage.outputTokens;
    made.costUsd += out.costUsd;
    const text = out.text.trim();
    if (text === '') return undefined;
    await store.putArtifact({
      runId: input.runId,
      seq: input.callSeq,
      artifact: {
        id,
        type: 'context.summary',
        schemaVersion: '1',
        provenance: 'model',
        data: { text, of: item.itemId, sourceRef: item.sourceRef, route: routeName },
      },
      recordedAt: new Date().toISOString(),
    });
    return text;
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw err;
    return undefined;
  }
}
