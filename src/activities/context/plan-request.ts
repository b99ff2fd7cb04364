import { ContextError } from './errors.js';
import { TranscriptTurns } from './planned-turns.js';
import { headOf } from './request-head.js';
import {
  renderRequest,
  requestTokens,
  type RequestBudget,
  type RequestPackageInput,
  type RequestPackagePlan,
} from './request-package.js';
import { countWith } from './tokenizer.js';
import { fitSummary, summaryItem } from './transcript-items.js';
import type { ContextItem, OmissionReason } from './types.js';

/**
 * Share of the room left after the mandatory items and the newest turn that earlier whole turns may
 * take; the rest is for older turns as references and summaries (docs/context.md).
 */
export const WHOLE_TURNS_SHARE = 0.75;

type Omission = { itemId: string; reason: OmissionReason };

/**
 * Plans the request of call `callSeq` within the route's window: what is sent, in order, and what is
 * left out. Tokens are counted with the route's tokenizer over the rendered messages; the rendered
 * request never exceeds `contextWindow - outputReserve - requestOverhead`.
 *
 * Priority (seed 004): system instructions and the task (the first call's first user message) are
 * mandatory; then the first call's other items (memory); with `priority` (`context/v4`) the verified
 * observations of earlier turns as facts before memory, both in half the room left (request-head.ts);
 * then the newest turn (the
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
  const available = roomOf(budget);
  const turns = new TranscriptTurns({ ...input, tokenizer: budget.tokenizer, count });
  const head = headOf(
    turns,
    count,
    available,
    input.priority
      ? { now: input.now, policyVersion: input.policyVersion, retrieved: input.retrieved ?? [] }
      : undefined,
  );
  const choice = chooseTurns(turns, head.used, available);
  const body = assemble(turns, head.items, choice, input.summaries, count);
  const withheld = body.items.flatMap((i) =>
    i.withheldOf !== undefined ? [{ itemId: i.withheldOf, reason: 'withheld' as const }] : [],
  );
  const omissions = [...head.omissions, ...body.omissions, ...withheld];
  turns.forgetBefore(input.groups[choice.cut + 1]?.seq ?? input.callSeq);
  const omittedTurns = turns.omitted(choice.cut);
  const messages = renderRequest({ items: body.items });
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
      items: body.items,
      totalTokenEstimate: total,
      availableTokens: available,
      omittedItemRefs: omissions.map((o) => o.itemId),
      omissions,
      droppedExpiredRefs: turns.dropped,
      ...(omittedTurns ? { omittedTurns } : {}),
      builtAt: input.now,
      route: input.route,
      contextWindow: budget.contextWindow,
      outputReserve: budget.outputReserve,
      requestOverhead: budget.requestOverhead,
      tokenizer: budget.tokenizer,
    },
    messages,
    wanted: body.wanted,
    turnOf: body.turnOf,
  };
}

/**
 * Tokens the messages may take: the window less the output reserve and the tools and schema.
 * @throws ContextError `context.budget_invalid` when that leaves no room.
 */
function roomOf(budget: RequestBudget): number {
  const available = budget.contextWindow - budget.outputReserve - budget.requestOverhead;
  if (available <= 0)
    throw new ContextError(
      'context.budget_invalid',
      `the output reserve (${budget.outputReserve}) and the tools and schema (${budget.requestOverhead}) leave no room in a window of ${budget.contextWindow}`,
      { contextWindow: budget.contextWindow },
    );
  return available;
}

/** How each turn after `cut` is sent; turns 0..`cut` are left out (-1: none). */
interface TurnChoice {
  readonly chosen: ReadonlyMap<number, 'full' | 'compact'>;
  readonly cut: number;
}

/**
 * Which turns are sent, and how: newest first, whole while they fit (the turns after the newest in
 * {@link WHOLE_TURNS_SHARE} of the room left), then compacted, until one fits in neither form.
 * @throws ContextError `context.budget_exceeded` when the newest turn does not fit even compacted.
 */
function chooseTurns(turns: TranscriptTurns, usedByHead: number, available: number): TurnChoice {
  const newest = turns.newest;
  let used = usedByHead;
  const chosen = new Map<number, 'full' | 'compact'>();
  let wholeLimit = available;
  let whole = true;
  /** Turns 0..cut are left out: the first turn (newest first) that fits neither whole nor compacted, and every older one. */
  let cut = -1;
  for (let j = newest; j >= 0; j--) {
    const u = turns.turn(j);
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
  return { chosen, cut };
}

/** The package's items, the turn of each, the summaries wanted and the turns' omissions. */
interface Assembly {
  readonly items: ContextItem[];
  readonly turnOf: number[];
  /** Tool items sent as a summary that `summaries` has no text for. */
  readonly wanted: ContextItem[];
  readonly omissions: Omission[];
}

/**
 * The items of the package in order: the head, then each turn sent, oldest first (a compacted turn
 * with its observations as summary items); the items of a turn not sent in its compact form are
 * omitted as `summarized` (or `budget`, when the compact form has no place for them).
 */
function assemble(
  turns: TranscriptTurns,
  head: readonly ContextItem[],
  { chosen, cut }: TurnChoice,
  summaries: ReadonlyMap<string, string>,
  count: (text: string) => number,
): Assembly {
  const items: ContextItem[] = head.map(turns.size);
  const turnOf: number[] = items.map(() => 0);
  const wanted: ContextItem[] = [];
  const omissions: Omission[] = [];
  for (let j = cut + 1; j <= turns.newest; j++) {
    const u = turns.turn(j);
    const before = items.length;
    const seq = turns.seqOf(j);
    if (chosen.get(j) === 'full') {
      items.push(...u.full);
      for (let k = before; k < items.length; k++) turnOf.push(seq);
      continue;
    }
    for (const c of u.compact) {
      if (c.kind === 'tool_fact' && c.summaryOf !== undefined) {
        const of = u.full.find((f) => f.itemId === c.summaryOf)!;
        const known = summaries.get(of.itemId);
        if (known === undefined) wanted.push(of);
        items.push(turns.size(summaryItem(of, fitSummary(known ?? '', count))));
      } else items.push(c);
    }
    for (const f of u.full) {
      if (u.compact.includes(f)) continue;
      omissions.push({ itemId: f.itemId, reason: u.dropped.includes(f) ? 'budget' : 'summarized' });
    }
    for (let k = before; k < items.length; k++) turnOf.push(seq);
  }
  return { items, turnOf, wanted, omissions };
}
