/**
 * Tool results as the workflow gets them: read from the evidence store with their artifacts, output
 * bounded, and marked with the taint of what they read.
 */
import { taintDigestsOf } from '../workflows/index.js';
import type { TaintDigests, ToolCallResult } from '../contract/step-io.js';
import type { EvidenceStore, InvocationRecord, InvocationResult } from './store/index.js';

/**
 * Most characters of a tool's output (as JSON) returned to the workflow. Larger outputs stay whole in
 * the evidence store (the model reads results from there by reference); the workflow, and so the
 * history, gets `{ truncated: true, chars, preview }` with the first 8,000 characters.
 */
export const MAX_TOOL_RESULT_OUTPUT_CHARS = 64 * 1024;

/** `output`, or its preview when it is over {@link MAX_TOOL_RESULT_OUTPUT_CHARS}. */
function boundedOutput(
  output: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, unknown>> | undefined {
  if (output === undefined) return undefined;
  const text = JSON.stringify(output);
  if (text.length <= MAX_TOOL_RESULT_OUTPUT_CHARS) return output;
  return { truncated: true, chars: text.length, preview: text.slice(0, 8_000) };
}

/** The result the workflow gets of stored result `result` (output bounded, taint marked). */
export function fromStored(
  result: InvocationResult,
  startedAt: string,
  artifacts: ToolCallResult['artifacts'],
): ToolCallResult {
  return {
    status: result.status === 'succeeded' ? 'succeeded' : 'failed_terminal',
    output: boundedOutput(result.output),
    artifacts,
    externalId: result.externalId,
    errorCode: result.errorCode ?? (result.status === 'succeeded' ? undefined : `tool.${result.status}`),
    errorMessage: result.errorMessage,
    startedAt,
    finishedAt: result.recordedAt,
    ...taintOf(result.runId, result.output, artifacts),
    attempt: result.attempt,
  };
}

/** `{ taint }` when the result held secrets or personal data or was not read in full, else nothing. */
function taintOf(
  runId: string,
  output: Readonly<Record<string, unknown>> | undefined,
  artifacts: ToolCallResult['artifacts'],
): { taint?: TaintDigests } {
  // The run's own id, where a tool echoes it, is not data it read.
  const taint = taintDigestsOf(
    { output: output ?? null, artifacts: artifacts.map((a) => a.data ?? null) },
    new Set([runId]),
  );
  const found = taint.secret.length > 0 || taint.personal.length > 0;
  return found || taint.unscanned !== undefined ? { taint } : {};
}

/** The stored result of invocation `seq` of `runId`, with its artifacts; undefined without a result. */
export async function storedResult(
  store: EvidenceStore,
  runId: string,
  seq: number,
): Promise<ToolCallResult | undefined> {
  return storedResultOf(store, await store.getInvocation(runId, seq));
}

/** The stored result of an invocation already read, with its artifacts; undefined without a result. */
export async function storedResultOf(
  store: EvidenceStore,
  record: InvocationRecord | undefined,
): Promise<ToolCallResult | undefined> {
  if (!record?.result) return undefined;
  const ids = new Set(record.result.artifactIds);
  const artifacts = (await store.listArtifacts(record.runId)).filter((a) => ids.has(a.id));
  const plain = artifacts.map(({ runId: _r, seq: _s, attempt: _a, digest: _d, recordedAt: _t, ...a }) => a);
  return fromStored(record.result, record.intents[0]?.recordedAt ?? record.result.recordedAt, plain);
}
