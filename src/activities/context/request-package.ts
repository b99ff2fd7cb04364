/**
 * A request package: what planning one model call's request takes and gives (`planRequest`,
 * plan-request.ts), the turns it measures, and the messages a package renders to.
 */
import { DATA_NOTICE, renderDataBlock } from './render.js';
import { TOKENS_PER_MESSAGE } from './tokenizer.js';
import type { ModelMessage, ModelToolCallRef } from '../model/types.js';
import type { ModelMessageInput } from '../../contract/step-io.js';
import type { TokenizerName } from './tokenizer.js';
import type { ContextAccess, ContextItem, ContextPackage } from './types.js';

/** One earlier model call of the run: its new messages (references resolved) and the model's answer. */
export interface TranscriptGroup {
  readonly seq: number;
  readonly input: readonly ModelMessageInput[];
  readonly output: { readonly text: string; readonly toolCalls: readonly ModelToolCallRef[] };
}

/** The token budget of one request, from the route's configuration. */
export interface RequestBudget {
  readonly contextWindow: number;
  /** Tokens kept free for the answer. */
  readonly outputReserve: number;
  /** Tokens of the request outside the messages: tool definitions and the output schema. */
  readonly requestOverhead: number;
  readonly tokenizer: TokenizerName;
}

export interface RequestPackageInput {
  readonly runId: string;
  readonly callSeq: number;
  /** Every earlier group of the run, oldest first. */
  readonly groups: readonly TranscriptGroup[];
  /** This call's new messages (references resolved). */
  readonly newMessages: readonly ModelMessageInput[];
  readonly budget: RequestBudget;
  readonly route: string;
  /** Build time (ISO-8601); items expired or not yet effective then are dropped. */
  readonly now: string;
  readonly policyVersion: string;
  /** Summaries known so far, by the id of the tool item they stand for. */
  readonly summaries: ReadonlyMap<string, string>;
  /** Token counter (default: {@link countWith} of the budget's tokenizer); memoise it across calls. */
  readonly count?: (text: string) => number;
  /**
   * Scans a tool result's content (the input guardrail, memoised by the caller); its findings are
   * recorded on the item in the package (and its access label, with `priority`). Changes what is
   * sent only with `withholdFlagged`.
   */
  readonly scan?: (item: ContextItem) => ToolOutputScan;
  /** Turns measured by this run's earlier calls (see {@link TurnMemo}); updated in place. */
  readonly memo?: TurnMemo;
  /**
   * Seed 004's priority order (`context/v4`): after the instructions and the task, the verified
   * observations of earlier turns as facts, then memory, then the turns (`planRequest`). Absent:
   * `context/v3`.
   */
  readonly priority?: boolean;
  /**
   * With `priority`: tool output the scan flags is withheld, a reference and a notice sent in its
   * place (`withheldItem`; the run's policy asks, `ContextPolicy.flaggedToolOutput`).
   */
  readonly withholdFlagged?: boolean;
  /** With `priority`: references retrieved for this call (`retrievedItem`), ordered into the head. */
  readonly retrieved?: readonly ContextItem[];
}

/** What scanning one tool result found: the guardrail's findings (absent: none) and its data classification. */
export interface ToolOutputScan {
  readonly guardrail?: ContextItem['guardrail'];
  readonly access: ContextAccess;
}

export interface RequestPackagePlan {
  readonly pkg: ContextPackage;
  /** The messages to send: exactly {@link renderRequest} of `pkg`. */
  readonly messages: ModelMessage[];
  /** Tool items sent as a summary that `summaries` has no text for (ask the summarize route, then plan again). */
  readonly wanted: readonly ContextItem[];
  /**
   * For each item of `pkg.items`, the call number whose answer opens the turn the item belongs to;
   * 0 for the first call's own items (instructions, task, memory). Used to store the package in
   * chunks that successive calls share (package-store.ts).
   */
  readonly turnOf: readonly number[];
}

/**
 * One turn, measured: the model's answer to a call and the new messages of the next call (its tool
 * results). Items are sized (`tokenEstimate`, and the guardrail's findings on tool output).
 */
export interface PlannedTurn {
  readonly full: readonly ContextItem[];
  /** The compact form; summary stand-ins have an empty summary (their cost reserves SUMMARY_MAX_TOKENS). */
  readonly compact: readonly ContextItem[];
  /** Items of `full` with no place in the compact form. */
  readonly dropped: readonly ContextItem[];
  /** Planned tokens of `full` and of `compact`. */
  readonly fullCost: number;
  readonly compactCost: number;
}

/**
 * The turns one run's earlier calls measured, by the call number of the answer that opens them, for
 * one tokenizer. A turn of stored groups never changes (a message group is written once per call
 * number), so a caller keeps this across a run's calls and each call measures only the turns that
 * are new to it. `planRequest` adds to it and removes the turns older than the oldest it sent.
 */
export interface TurnMemo {
  tokenizer: TokenizerName;
  readonly turns: Map<number, PlannedTurn>;
}

/** True for items sent as they are (harness text and the model's own turns); every other item is a fenced data block. */
const unfenced = (i: ContextItem): boolean => i.trust === 'system' || i.message?.role === 'assistant';

/** The message one item is sent as. */
export function itemToMessage(i: ContextItem): ModelMessage {
  const content = unfenced(i) ? i.content : renderDataBlock(i);
  const role = i.message?.role ?? 'user';
  if (role === 'assistant')
    return { role, content, ...(i.message?.toolCalls ? { toolCalls: i.message.toolCalls } : {}) };
  if (role === 'tool') return { role, toolCallId: i.message?.toolCallId ?? 'unknown', content };
  if (role === 'system' && i.trust === 'system') return { role: 'system', content };
  return { role: 'user', content };
}

/**
 * The messages of a request package, in package order: each item one message (system instructions
 * as system messages, the model's earlier turns as assistant messages with their tool calls, tool
 * results as tool messages, everything not written by the harness or the model as a fenced, escaped
 * data block). When the package has data, {@link DATA_NOTICE} ends the first system message (a
 * system message of its own when there is none): the notice is never inside an untrusted block.
 * Pure: the stored package renders to exactly what was sent.
 */
export function renderRequest(pkg: Pick<ContextPackage, 'items'>): ModelMessage[] {
  const messages = pkg.items.map(itemToMessage);
  if (!pkg.items.some((i) => !unfenced(i))) return messages;
  const first = messages.findIndex((m) => m.role === 'system');
  if (first < 0) return [{ role: 'system', content: DATA_NOTICE }, ...messages];
  const sys = messages[first]!;
  messages[first] = { role: 'system', content: `${sys.content}\n\n${DATA_NOTICE}` };
  return messages;
}

/** Tokens of one message: its content, its framing, tool calls and the call id it answers. */
export function messageTokens(m: ModelMessage, count: (text: string) => number): number {
  let n = TOKENS_PER_MESSAGE + count(m.content);
  if (m.role === 'assistant' && m.toolCalls) n += count(JSON.stringify(m.toolCalls));
  if (m.role === 'tool') n += count(m.toolCallId);
  return n;
}

/** Tokens of a whole message list as {@link messageTokens} counts them (what the budget is checked against). */
export function requestTokens(messages: readonly ModelMessage[], count: (text: string) => number): number {
  return messages.reduce((n, m) => n + messageTokens(m, count), 0);
}
