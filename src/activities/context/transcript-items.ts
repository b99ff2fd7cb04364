/**
 * A run's transcript as context items: the ids and items made from each call's new messages and
 * from the model's answers, and their compact and summary forms. Pure.
 */
import type { ModelMessageInput } from '../../contract/step-io.js';
import type { TranscriptGroup } from './request-package.js';
import type { ContextItem } from './types.js';
import type { RetrievedReference } from '../../contract/retrieval.js';

/** Most tokens of one summary as sent (longer summaries are cut). Reserved for every summary item. */
export const SUMMARY_MAX_TOKENS = 80;
/** Most characters of the model's own earlier text, and of one tool call's arguments, in a compacted turn. */
export const COMPACT_TEXT_CHARS = 200;
/** The summary text of an observation the summarize route gave no summary for. */
export const NO_SUMMARY = '(no summary available: read the reference)';
/** The id of the context item of new message `index` of call `seq`. */
export const messageItemId = (runId: string, seq: number, index: number): string =>
  `${runId}:m${seq}:${index}`;
/** The id of the context item of the model's answer to call `seq`. */
export const answerItemId = (runId: string, seq: number): string => `${runId}:a${seq}`;
/** The id of the model artifact holding the summary of tool item `itemId`. */
export const summaryArtifactId = (itemId: string): string => `ctx-summary:${itemId}`;

/** The context item of one input message: kind and trust from the runner, never from content. */
export function inputItem(
  runId: string,
  seq: number,
  index: number,
  m: ModelMessageInput,
  task: boolean,
  /** `name@version` of the tool calls the previous answer made, by call id (for tool results' sourceRef). */
  toolNames?: ReadonlyMap<string, string>,
): ContextItem {
  const trust = m.trust ?? (m.role === 'system' ? 'system' : 'untrusted');
  if (m.memory !== undefined)
    return {
      itemId: messageItemId(runId, seq, index),
      kind: 'memory',
      trust,
      sourceRef: m.memory.sourceRef,
      content: m.content,
      ...(m.memory.expiresAt !== undefined ? { expiresAt: m.memory.expiresAt } : {}),
      message: { role: 'user' },
    };
  const kind =
    m.role === 'system' && trust === 'system'
      ? 'instruction'
      : task
        ? 'task_state'
        : m.role === 'tool'
          ? 'tool_fact'
          : 'conversation';
  const callId = m.toolCallId ?? 'unknown';
  // `tool://order.read@v1/call/<id>[/invocation/<seq>]`: eval labels name the tool (docs/context.md).
  const toolRef = `tool://${toolNames?.get(callId) ?? 'unknown'}/call/${callId}`;
  return {
    itemId: messageItemId(runId, seq, index),
    kind,
    trust,
    sourceRef:
      m.role === 'tool'
        ? m.resultOf !== undefined
          ? `${toolRef}/invocation/${m.resultOf}`
          : toolRef
        : `message://${runId}/${seq}/${index}`,
    content: m.content,
    message:
      m.role === 'tool'
        ? { role: 'tool', toolCallId: m.toolCallId ?? 'unknown' }
        : { role: m.role === 'system' && trust !== 'system' ? 'user' : m.role },
  };
}

/** The context item of the model's answer to call `g.seq`. */
export function answerItem(runId: string, g: TranscriptGroup): ContextItem {
  return {
    itemId: answerItemId(runId, g.seq),
    kind: 'conversation',
    trust: 'untrusted',
    sourceRef: `model://${runId}/${g.seq}`,
    content: g.output.text,
    message: {
      role: 'assistant',
      ...(g.output.toolCalls.length > 0
        ? { toolCalls: g.output.toolCalls.map((c) => ({ ...c, args: { ...c.args } })) }
        : {}),
    },
  };
}

const cut = (text: string, chars: number): string =>
  text.length <= chars ? text : `${text.slice(0, chars)}… (${text.length} characters)`;

/** The compact form of answer item `item`: its text and long tool arguments cut. */
export function compactAnswer(item: ContextItem): ContextItem {
  const calls = item.message?.toolCalls?.map((c) => {
    const args = JSON.stringify(c.args);
    return args.length <= COMPACT_TEXT_CHARS
      ? c
      : { ...c, args: { _omitted: `${args.length} characters of arguments` } };
  });
  return {
    ...item,
    itemId: `${item.itemId}:compact`,
    content: cut(item.content, COMPACT_TEXT_CHARS),
    summaryOf: item.itemId,
    message: { role: 'assistant', ...(calls ? { toolCalls: calls } : {}) },
  };
}

/** The summary item of tool item `item`: a reference to the full observation and a model-written summary. */
export function summaryItem(item: ContextItem, summary: string): ContextItem {
  return {
    itemId: `${item.itemId}:summary`,
    kind: 'tool_fact',
    // A summary is a model artifact: never more trusted than untrusted, whatever it summarises.
    trust: 'untrusted',
    sourceRef: `artifact://${summaryArtifactId(item.itemId)}`,
    content: `Earlier observation ${item.sourceRef}, shown as a reference and a model-written summary (not verified). Summary: ${summary}`,
    summaryOf: item.itemId,
    ...(item.message ? { message: item.message } : {}),
  };
}

/**
 * A verified observation as a fact of the request's head (`context/v4`): the same item (id, trust
 * `verified`, source, content) sent as a data block of its own, not as the tool message it was.
 */
export function factItem(item: ContextItem): ContextItem {
  return {
    itemId: item.itemId,
    kind: 'tool_fact',
    trust: item.trust,
    sourceRef: item.sourceRef,
    content: item.content,
    message: { role: 'user' },
  };
}

/**
 * What the turn of a verified observation sent as a fact (`factItem`) sends in its place: the tool
 * message answering the same call, naming the fact. Harness text, fenced like the observation.
 */
export function factReference(item: ContextItem): ContextItem {
  return {
    itemId: `${item.itemId}:ref`,
    kind: 'tool_fact',
    trust: item.trust,
    sourceRef: item.sourceRef,
    content: `Verified observation: sent above as the fact ${item.itemId}.`,
    ...(item.message ? { message: item.message } : {}),
  };
}

/**
 * The context item of reference `k` retrieved for call `seq`: kind `retrieved_evidence`, trust
 * `untrusted` (retrieved text is data, never instructions: a fenced data block), the document's
 * access label, source `retrieval://<docId>`.
 */
export function retrievedItem(runId: string, seq: number, k: number, ref: RetrievedReference): ContextItem {
  return {
    itemId: `${runId}:r${seq}:${k}`,
    kind: 'retrieved_evidence',
    trust: 'untrusted',
    sourceRef: `retrieval://${ref.docId}`,
    content: `${ref.sourceRef} (score ${ref.score.toFixed(3)}): ${ref.excerpt}`,
    access: ref.access,
    message: { role: 'user' },
  };
}

/**
 * What is sent instead of flagged tool output the run's policy withholds: the tool message answering
 * the same call (or a data block, for a fact), with a notice naming the guardrail's reason codes and
 * the output's source, never the output. Fenced like the output (its source names a model-made call id).
 */
export function withheldItem(item: ContextItem, found: NonNullable<ContextItem['guardrail']>): ContextItem {
  return {
    itemId: `${item.itemId}:withheld`,
    kind: item.kind,
    trust: 'untrusted',
    sourceRef: item.sourceRef,
    content:
      `Tool output withheld by the run's policy: the input guardrail found ${found.reasonCodes.join(', ')} ` +
      `in it (verdict ${found.verdict}). It is kept in the evidence store under ${item.sourceRef}; it is not shown.`,
    withheldOf: item.itemId,
    ...(item.message ? { message: item.message } : {}),
  };
}

/** `summary` cut to at most {@link SUMMARY_MAX_TOKENS} tokens (whole, when it fits). */
export function fitSummary(summary: string, count: (text: string) => number): string {
  let text = summary.trim();
  if (text === '') return NO_SUMMARY;
  while (count(text) > SUMMARY_MAX_TOKENS) text = `${text.slice(0, Math.floor(text.length * 0.8))}…`;
  return text;
}
