/**
 * A call's transcript measured for its request: the first call's own items, and the turns (the
 * model's answer to a call and the new messages of the next call), each sized in tokens as sent.
 */
import type { ModelMessageInput } from '../../contract/step-io.js';
import {
  itemToMessage,
  messageTokens,
  type PlannedTurn,
  type TranscriptGroup,
  type ToolOutputScan,
  type TurnMemo,
} from './request-package.js';
import type { TokenizerName } from './tokenizer.js';
import {
  SUMMARY_MAX_TOKENS,
  answerItem,
  compactAnswer,
  factReference,
  inputItem,
  summaryItem,
  withheldItem,
} from './transcript-items.js';
import type { ContextItem, ContextPackage } from './types.js';
import { versionedName } from '../../contract/versioned-name.js';

/** Tokens added per summary item for BPE effects at the cut between reserved and real text. */
const SUMMARY_MARGIN = 4;

/** Planned tokens of sized items: a summary stand-in reserves the longest summary it may get. */
export function plannedTokens(items: readonly ContextItem[]): number {
  return items.reduce(
    (n, i) =>
      n +
      i.tokenEstimate! +
      (i.summaryOf !== undefined && i.kind === 'tool_fact' ? SUMMARY_MAX_TOKENS + SUMMARY_MARGIN : 0),
    0,
  );
}

/** What measuring one call's transcript reads (the planner's input, with its token counter). */
export interface TranscriptSource {
  readonly runId: string;
  readonly callSeq: number;
  /** Every earlier group of the run, oldest first. */
  readonly groups: readonly TranscriptGroup[];
  /** This call's new messages (references resolved). */
  readonly newMessages: readonly ModelMessageInput[];
  /** Build time (ISO-8601); items expired or not yet effective then are dropped. */
  readonly now: string;
  readonly tokenizer: TokenizerName;
  readonly count: (text: string) => number;
  readonly scan?: (item: ContextItem) => ToolOutputScan;
  readonly memo?: TurnMemo;
  /** `context/v4`: items carry access labels. */
  readonly priority?: boolean;
  /** `context/v4`: flagged tool output is withheld (`withheldItem` sent instead). */
  readonly withholdFlagged?: boolean;
}

const live = (i: ContextItem, now: number): boolean =>
  (i.effectiveAt === undefined || Date.parse(i.effectiveAt) <= now) &&
  (i.expiresAt === undefined || Date.parse(i.expiresAt) > now);

/**
 * The turns of one call's transcript. Turns are built newest first, only as far as the plan reaches
 * (the cost of a call grows with what fits in the window, not with the length of the run), and taken
 * from the run's {@link TurnMemo} when an earlier call measured them. Pure but for the memo: emptied
 * when it was measured with another tokenizer, then added to.
 */
export class TranscriptTurns {
  /** Ids of the items dropped as expired or not yet effective, in the order they were met. */
  readonly dropped: string[] = [];
  /** Index of the newest turn (the one holding this call's own messages); -1 when there is none. */
  readonly newest: number;
  private readonly now: number;
  private readonly inputs: readonly { seq: number; input: readonly ModelMessageInput[] }[];
  private readonly firstUser: number;
  private readonly built = new Map<number, PlannedTurn>();
  /** Ids of the verified observations sent as facts in the head: their turns send a reference. */
  private promoted: ReadonlySet<string> = new Set();

  constructor(private readonly source: TranscriptSource) {
    this.now = Date.parse(source.now);
    this.inputs = [
      ...source.groups.map((g) => ({ seq: g.seq, input: g.input })),
      { seq: source.callSeq, input: source.newMessages },
    ];
    this.firstUser = this.inputs[0]!.input.findIndex((m) => m.role === 'user');
    this.newest = source.groups.length - 1;
    const memo = source.memo;
    if (memo && memo.tokenizer !== source.tokenizer) {
      memo.tokenizer = source.tokenizer;
      memo.turns.clear();
    }
  }

  /** The first call's own items that are live: instructions, the task, memory and facts. */
  prefix(): ContextItem[] {
    return this.keep(this.itemsOf(0));
  }

  /**
   * The verified tool results of the turns before the newest (trust `verified`, live), newest first,
   * at most `max`: the candidates for the facts of a `context/v4` head. Reads only the messages'
   * trust until it has `max`, so it measures nothing.
   */
  verifiedFacts(max: number): ContextItem[] {
    const out: ContextItem[] = [];
    for (let k = this.newest; k >= 1 && out.length < max; k--) {
      const input = this.inputs[k]!.input;
      if (!input.some((m) => m.role === 'tool' && m.trust === 'verified')) continue;
      const items = this.itemsOf(k).filter(
        (i) => i.message?.role === 'tool' && i.trust === 'verified' && live(i, this.now),
      );
      out.push(...items.reverse().slice(0, max - out.length));
    }
    return out;
  }

  /**
   * Marks the verified observations sent as facts in the head (ids): their own turns send a short
   * reference in their place (`factReference`), so the call they answer keeps its tool message.
   * Call before the first {@link TranscriptTurns.turn}.
   */
  promote(ids: ReadonlySet<string>): void {
    this.promoted = ids;
  }

  /** Tokens of `items` as sent. */
  render(items: readonly ContextItem[]): number {
    return items.reduce((n, i) => n + messageTokens(itemToMessage(i), this.source.count), 0);
  }

  /**
   * `i` with its tokens and, for tool output, what the guardrail found in it; with `priority`, its
   * access label; flagged tool output withheld when the source asks (the stand-in sized instead).
   */
  size = (i: ContextItem): ContextItem => {
    const { scan, count, priority, withholdFlagged } = this.source;
    const scanned = scan && i.kind === 'tool_fact' && i.summaryOf === undefined && i.withheldOf === undefined;
    const found = scanned ? scan(i) : undefined;
    const flagged = found?.guardrail;
    const shown = withholdFlagged && flagged ? withheldItem(i, flagged) : i;
    return {
      ...shown,
      tokenEstimate: messageTokens(itemToMessage(shown), count),
      ...(flagged ? { guardrail: flagged } : {}),
      ...(priority ? { access: found?.access ?? shown.access ?? 'internal' } : {}),
    };
  };

  /** The call number of the answer that opens turn `j`. */
  seqOf(j: number): number {
    return this.source.groups[j]!.seq;
  }

  /** Turn `j`: the answer of group `j` and the new messages of the call after it, measured. */
  turn(j: number): PlannedTurn {
    const { groups, runId, memo } = this.source;
    const seq = groups[j]!.seq;
    // The newest turn holds this call's own messages: never taken from the memo.
    const remembered = j < groups.length - 1 ? memo?.turns.get(seq) : undefined;
    // A remembered turn never holds fact references; one of its items promoted now is measured again.
    const usable = remembered?.full.every((i) => !this.promoted.has(i.itemId)) ? remembered : undefined;
    const found = this.built.get(j) ?? usable;
    if (found) {
      this.built.set(j, found);
      return found;
    }
    const answer = this.size(answerItem(runId, groups[j]!));
    const raw = this.itemsOf(j + 1);
    const next = this.keep(raw).map((i) => this.size(this.promoted.has(i.itemId) ? factReference(i) : i));
    const compact: ContextItem[] = [this.size(compactAnswer(answer))];
    const lost: ContextItem[] = [];
    for (const i of next) {
      if (i.message?.role !== 'tool') lost.push(i);
      else {
        const stand = this.size(summaryItem(i, ''));
        // An observation no larger than its summary would be is kept whole, never summarised.
        // Planned with an empty summary and SUMMARY_MAX_TOKENS reserved: the choice does not depend on the text.
        compact.push(plannedTokens([i]) <= plannedTokens([stand]) ? i : stand);
      }
    }
    const full = [answer, ...next];
    const made: PlannedTurn = {
      full,
      compact,
      dropped: lost,
      fullCost: plannedTokens(full),
      compactCost: plannedTokens(compact),
    };
    this.built.set(j, made);
    // The newest turn holds this call's own messages, and a turn with timed items depends on `now`.
    // A turn with a fact reference depends on this call's head.
    const timeless = raw.every(
      (i) => i.effectiveAt === undefined && i.expiresAt === undefined && !this.promoted.has(i.itemId),
    );
    if (memo && j < groups.length - 1 && timeless) memo.turns.set(seq, made);
    return made;
  }

  /** Removes from the memo the turns opened before call `oldest` (the oldest turn this request sent). */
  forgetBefore(oldest: number): void {
    const memo = this.source.memo;
    if (!memo) return;
    for (const seq of memo.turns.keys()) if (seq < oldest) memo.turns.delete(seq);
  }

  /** The turns 0..`cut` left out together (turn `cut` measured, the older ones never examined). */
  omitted(cut: number): ContextPackage['omittedTurns'] {
    if (cut < 0) return undefined;
    // The turn that did not fit was examined: its expired items are in `dropped`, not counted here.
    // Older turns are one answer and the new messages of the call after it, never examined, so
    // never listed one by one (the list would grow with the run).
    let count = this.turn(cut).full.length;
    for (let k = 1; k <= cut; k++) count += 1 + this.inputs[k]!.input.length;
    return { firstCall: this.source.groups[0]!.seq, lastCall: this.source.groups[cut]!.seq, items: count };
  }

  /** The items of input `k`: the first call's (0), else the new messages of the call after group `k - 1`. */
  private itemsOf(k: number): ContextItem[] {
    const { groups, runId } = this.source;
    const calls = k > 0 ? groups[k - 1]!.output.toolCalls : [];
    const names = new Map(calls.map((c) => [c.id, versionedName(c.name, c.version)]));
    return this.inputs[k]!.input.map((m, idx) =>
      inputItem(runId, this.inputs[k]!.seq, idx, m, k === 0 && idx === this.firstUser, names),
    );
  }

  /** The live items of `items`; the others are recorded in {@link TranscriptTurns.dropped}. */
  private keep(items: readonly ContextItem[]): ContextItem[] {
    return items.filter((i) => {
      if (live(i, this.now)) return true;
      this.dropped.push(i.itemId);
      return false;
    });
  }
}
