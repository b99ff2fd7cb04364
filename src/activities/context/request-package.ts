import { ContextError } from './errors.js';
import { DATA_NOTICE, renderDataBlock } from './render.js';
import { TOKENS_PER_MESSAGE, countWith } from './tokenizer.js';
import type { ModelMessage, ModelToolCallRef } from '../model/types.js';
import type { ModelMessageInput } from '../../contract/step-io.js';
import type { TokenizerName } from './tokenizer.js';
import type { ContextItem, ContextPackage, OmissionReason } from './types.js';

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
   * recorded on the item in the package. Does not change what is sent.
   */
  readonly scan?: (item: ContextItem) => ContextItem['guardrail'];
  /** Turns measured by this run's earlier calls (see {@link TurnMemo}); updated in place. */
  readonly memo?: TurnMemo;
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

/** Most tokens of one summary as sent (longer summaries are cut). Reserved for every summary item. */
export const SUMMARY_MAX_TOKENS = 80;
/** Most characters of the model's own earlier text, and of one tool call's arguments, in a compacted turn. */
export const COMPACT_TEXT_CHARS = 200;
/** The summary text of an observation the summarize route gave no summary for. */
export const NO_SUMMARY = '(no summary available: read the reference)';
/**
 * Share of the room left after the mandatory items and the newest turn that earlier whole turns may
 * take; the rest is for older turns as references and summaries (docs/context.md).
 */
export const WHOLE_TURNS_SHARE = 0.75;
/** Tokens added per summary item for BPE effects at the cut between reserved and real text. */
const SUMMARY_MARGIN = 4;

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

function answerItem(runId: string, g: TranscriptGroup): ContextItem {
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

function compactAnswer(item: ContextItem): ContextItem {
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
 * are new to it. {@link planRequest} adds to it and removes the turns older than the oldest it sent.
 */
export interface TurnMemo {
  tokenizer: TokenizerName;
  readonly turns: Map<number, PlannedTurn>;
}

const live = (i: ContextItem, now: number): boolean =>
  (i.effectiveAt === undefined || Date.parse(i.effectiveAt) <= now) &&
  (i.expiresAt === undefined || Date.parse(i.expiresAt) > now);

/**
 * Plans the request of call `callSeq` within the route's window: what is sent, in order, and what is
 * left out. Tokens are counted with the route's tokenizer over the rendered messages; the rendered
 * request never exceeds `contextWindow - outputReserve - requestOverhead`.
 *
 * Priority (seed 004): system instructions and the task (the first call's first user message) are
 * mandatory; then the first call's other items (verified facts, memory); then the newest turn (the
 * model's last answer and the results it led to: whole, else compacted); then earlier turns newest
 * first while they fit whole in {@link WHOLE_TURNS_SHARE} of the room left; then older turns compacted (the model's text and tool arguments cut,
 * every tool observation replaced by a reference and a summary from `summaries`); the rest is left
 * out. Turns stay whole units, so every tool result sent follows the call it answers. Expired items
 * are dropped. Pure and deterministic.
 *
 * Throws {@link ContextError} `context.budget_invalid` when the reserves leave no room,
 * `context.budget_exceeded` when the mandatory items and the newest turn (compacted) do not fit.
 */
export function planRequest(input: RequestPackageInput): RequestPackagePlan {
  const { runId, budget } = input;
  const count = input.count ?? ((t: string) => countWith(budget.tokenizer, t));
  const now = Date.parse(input.now);
  const available = budget.contextWindow - budget.outputReserve - budget.requestOverhead;
  if (available <= 0)
    throw new ContextError(
      'context.budget_invalid',
      `the output reserve (${budget.outputReserve}) and the tools and schema (${budget.requestOverhead}) leave no room in a window of ${budget.contextWindow}`,
      { contextWindow: budget.contextWindow },
    );
  const dropped: string[] = [];
  const keep = (items: readonly ContextItem[]): ContextItem[] =>
    items.filter((i) => {
      if (live(i, now)) return true;
      dropped.push(i.itemId);
      return false;
    });

  const inputs = [
    ...input.groups.map((g) => ({ seq: g.seq, input: g.input })),
    { seq: input.callSeq, input: input.newMessages },
  ];
  const firstUser = inputs[0]!.input.findIndex((m) => m.role === 'user');
  const itemsOf = (k: number): ContextItem[] => {
    const calls = k > 0 ? input.groups[k - 1]!.output.toolCalls : [];
    const names = new Map(calls.map((c) => [c.id, `${c.name}@${c.version}`]));
    return inputs[k]!.input.map((m, idx) =>
      inputItem(runId, inputs[k]!.seq, idx, m, k === 0 && idx === firstUser, names),
    );
  };
  const prefix = keep(itemsOf(0));
  const render = (items: readonly ContextItem[]): number =>
    items.reduce((n, i) => n + messageTokens(itemToMessage(i), count), 0);
  /** `i` with its tokens and, for tool output, what the guardrail found in it. */
  const size = (i: ContextItem): ContextItem => {
    const found =
      input.scan && i.kind === 'tool_fact' && i.summaryOf === undefined ? input.scan(i) : undefined;
    return {
      ...i,
      tokenEstimate: messageTokens(itemToMessage(i), count),
      ...(found ? { guardrail: found } : {}),
    };
  };
  /** Planned tokens of sized items: a summary stand-in reserves the longest summary it may get. */
  const planned = (items: readonly ContextItem[]): number =>
    items.reduce(
      (n, i) =>
        n +
        i.tokenEstimate! +
        (i.summaryOf !== undefined && i.kind === 'tool_fact' ? SUMMARY_MAX_TOKENS + SUMMARY_MARGIN : 0),
      0,
    );
  const memo = input.memo;
  if (memo && memo.tokenizer !== budget.tokenizer) {
    memo.tokenizer = budget.tokenizer;
    memo.turns.clear();
  }
  // Turns are built newest first, only as far as the plan reaches: the cost of a call grows with
  // what fits in the window, not with the length of the run.
  const built = new Map<number, PlannedTurn>();
  const unit = (j: number): PlannedTurn => {
    const seq = input.groups[j]!.seq;
    // The newest turn holds this call's own messages: never taken from the memo.
    const found = built.get(j) ?? (j < input.groups.length - 1 ? memo?.turns.get(seq) : undefined);
    if (found) {
      built.set(j, found);
      return found;
    }
    const answer = size(answerItem(runId, input.groups[j]!));
    const raw = itemsOf(j + 1);
    const next = keep(raw).map(size);
    const compact: ContextItem[] = [size(compactAnswer(answer))];
    const lost: ContextItem[] = [];
    for (const i of next) {
      if (i.message?.role !== 'tool') lost.push(i);
      else {
        const stand = size(summaryItem(i, ''));
        // An observation no larger than its summary would be is kept whole, never summarised.
        // Planned with an empty summary and SUMMARY_MAX_TOKENS reserved: the choice does not depend on the text.
        compact.push(planned([i]) <= planned([stand]) ? i : stand);
      }
    }
    const full = [answer, ...next];
    const made: PlannedTurn = {
      full,
      compact,
      dropped: lost,
      fullCost: planned(full),
      compactCost: planned(compact),
    };
    built.set(j, made);
    // The newest turn holds this call's own messages, and a turn with timed items depends on `now`.
    const timeless = raw.every((i) => i.effectiveAt === undefined && i.expiresAt === undefined);
    if (memo && j < input.groups.length - 1 && timeless) memo.turns.set(seq, made);
    return made;
  };
  const newest = input.groups.length - 1;

  // The notice and its message, counted whether or not data ends up in the package (room for it).
  let used = TOKENS_PER_MESSAGE + count(`\n\n${DATA_NOTICE}`);
  const omissions: { itemId: string; reason: OmissionReason }[] = [];
  const mandatory = prefix.filter((i) => i.kind === 'instruction' || i.kind === 'task_state');
  used += render(mandatory);
  if (used > available)
    throw new ContextError(
      'context.budget_exceeded',
      `system instructions and the task need ${used} tokens but only ${available} are available`,
      { needed: used, available },
    );
  const head: ContextItem[] = [];
  for (const i of prefix) {
    if (mandatory.includes(i)) head.push(i);
    else {
      const cost = render([i]);
      if (used + cost <= available) {
        used += cost;
        head.push(i);
      } else omissions.push({ itemId: i.itemId, reason: 'budget' });
    }
  }
  const chosen = new Map<number, 'full' | 'compact'>();
  let wholeLimit = available;
  let whole = true;
  /** Turns 0..cut are left out: the first turn (newest first) that fits neither whole nor compacted, and every older one. */
  let cut = -1;
  for (let j = newest; j >= 0; j--) {
    const u = unit(j);
    if (whole) {
      const cost = u.fullCost;
      // Whole turns after the newest take at most WHOLE_TURNS_SHARE of the room left after the
      // newest: the rest is for older turns as references and summaries.
      const limit = j === newest ? available : wholeLimit;
      if (used + cost <= limit) {
        used += cost;
        chosen.set(j, 'full');
        if (j === newest) wholeLimit = used + Math.floor((available - used) * WHOLE_TURNS_SHARE);
        continue;
      }
      whole = false;
    }
    const full = u.fullCost;
    const cost = u.compactCost;
    if (full <= cost && used + full <= available) {
      used += full;
      chosen.set(j, 'full');
    } else if (used + cost <= available) {
      used += cost;
      chosen.set(j, 'compact');
      if (j === newest) wholeLimit = used + Math.floor((available - used) * WHOLE_TURNS_SHARE);
    } else if (j === newest)
      throw new ContextError(
        'context.budget_exceeded',
        `the newest turn needs ${cost} tokens even compacted, with ${available - used} left of ${available}`,
        { needed: used + cost, available },
      );
    else {
      cut = j;
      break;
    }
  }

  const items: ContextItem[] = head.map(size);
  const turnOf: number[] = items.map(() => 0);
  const wanted: ContextItem[] = [];
  for (let j = cut + 1; j <= newest; j++) {
    const u = unit(j);
    const before = items.length;
    const seq = input.groups[j]!.seq;
    if (chosen.get(j) === 'full') {
      items.push(...u.full);
      for (let k = before; k < items.length; k++) turnOf.push(seq);
      continue;
    }
    for (const c of u.compact) {
      if (c.kind === 'tool_fact' && c.summaryOf !== undefined) {
        const of = u.full.find((f) => f.itemId === c.summaryOf)!;
        const known = input.summaries.get(of.itemId);
        if (known === undefined) wanted.push(of);
        items.push(size(summaryItem(of, fitSummary(known ?? '', count))));
      } else items.push(c);
    }
    for (const f of u.full) {
      if (u.compact.includes(f)) continue;
      omissions.push({ itemId: f.itemId, reason: u.dropped.includes(f) ? 'budget' : 'summarized' });
    }
    for (let k = before; k < items.length; k++) turnOf.push(seq);
  }
  if (memo) {
    const oldest = input.groups[cut + 1]?.seq ?? input.callSeq;
    for (const seq of memo.turns.keys()) if (seq < oldest) memo.turns.delete(seq);
  }
  let omittedTurns: ContextPackage['omittedTurns'];
  if (cut >= 0) {
    // The turn that did not fit was examined: its expired items are in `dropped`, not counted here.
    // Older turns are one answer and the new messages of the call after it, never examined, so
    // never listed one by one (the list would grow with the run).
    let count = unit(cut).full.length;
    for (let k = 1; k <= cut; k++) count += 1 + inputs[k]!.input.length;
    omittedTurns = { firstCall: input.groups[0]!.seq, lastCall: input.groups[cut]!.seq, items: count };
  }
  const messages = renderRequest({ items });
  const total = requestTokens(messages, count);
  if (total > available)
    // Cannot happen when the reserves hold (every item is counted on its rendered form); checked so a
    // request over the window is never sent.
    throw new ContextError(
      'context.budget_exceeded',
      `the planned request has ${total} tokens, over ${available}`,
      {
        needed: total,
        available,
      },
    );
  return {
    pkg: {
      packageId: `${runId}:ctx${input.callSeq}`,
      policyVersion: input.policyVersion,
      items,
      totalTokenEstimate: total,
      availableTokens: available,
      omittedItemRefs: omissions.map((o) => o.itemId),
      omissions,
      droppedExpiredRefs: dropped,
      ...(omittedTurns ? { omittedTurns } : {}),
      builtAt: input.now,
      route: input.route,
      contextWindow: budget.contextWindow,
      outputReserve: budget.outputReserve,
      requestOverhead: budget.requestOverhead,
      tokenizer: budget.tokenizer,
    },
    messages,
    wanted,
    turnOf,
  };
}

/** `summary` cut to at most {@link SUMMARY_MAX_TOKENS} tokens (whole, when it fits). */
export function fitSummary(summary: string, count: (text: string) => number): string {
  let text = summary.trim();
  if (text === '') return NO_SUMMARY;
  while (count(text) > SUMMARY_MAX_TOKENS) text = `${text.slice(0, Math.floor(text.length * 0.8))}…`;
  return text;
}
