/**
 * The head of a request: what is sent before the turns. `context/v3`: the instructions and the task,
 * then the first call's other items (memory) while they fit. `context/v4` (seed 004's priority order):
 * the instructions and the task, then the verified observations of earlier turns as facts, then
 * retrieved references, then memory, ordered and filtered by the context builder ({@link buildContext}), within
 * {@link FACTS_SHARE} of the room left.
 */
import { buildContext } from './build-context.js';
import { ContextError } from './errors.js';
import type { TranscriptTurns } from './planned-turns.js';
import { DATA_NOTICE } from './render.js';
import { TOKENS_PER_MESSAGE } from './tokenizer.js';
import { factItem } from './transcript-items.js';
import type { ContextItem, OmissionReason } from './types.js';

/** Most verified observations of earlier turns a `context/v4` head sends as facts. */
export const MAX_VERIFIED_FACTS = 16;
/** Share of the room left after the instructions and the task that facts and memory may take (`context/v4`). */
export const FACTS_SHARE = 0.5;

/** The first call's items that are sent, the tokens used with them, and the omissions so far. */
export interface Head {
  readonly items: readonly ContextItem[];
  readonly used: number;
  /** The head's items left out for the budget. */
  readonly omissions: readonly { itemId: string; reason: OmissionReason }[];
}

/**
 * The head of the request: the mandatory items (instructions and the task), then the rest while it
 * fits: in `priority` order (`context/v4`) the verified facts and memory, else the first call's other
 * items in their order. Promotes the facts it sends on `turns` ({@link TranscriptTurns.promote}).
 * @throws ContextError `context.budget_exceeded` when the mandatory items do not fit.
 */
export function headOf(
  turns: TranscriptTurns,
  count: (text: string) => number,
  available: number,
  priority:
    | {
        readonly now: string;
        readonly policyVersion: string;
        readonly retrieved?: readonly ContextItem[];
      }
    | undefined,
): Head {
  const prefix = turns.prefix();
  // The notice and its message, counted whether or not data ends up in the package (room for it).
  let used = TOKENS_PER_MESSAGE + count(`\n\n${DATA_NOTICE}`);
  const omissions: { itemId: string; reason: OmissionReason }[] = [];
  const mandatory = prefix.filter((i) => i.kind === 'instruction' || i.kind === 'task_state');
  used += turns.render(mandatory);
  if (used > available)
    throw new ContextError(
      'context.budget_exceeded',
      `system instructions and the task need ${used} tokens but only ${available} are available`,
      { needed: used, available },
    );
  const rest = [...prefix.filter((i) => !mandatory.includes(i)), ...(priority?.retrieved ?? [])];
  const facts = priority ? turns.verifiedFacts(MAX_VERIFIED_FACTS).map(factItem) : [];
  const ordered = priority ? prioritised(mandatory, facts, rest, priority, count) : rest;
  const limit = priority ? used + Math.floor((available - used) * FACTS_SHARE) : available;
  const items: ContextItem[] = [...mandatory];
  const promoted = new Set<string>();
  for (const i of ordered) {
    // Sized as sent: a withheld fact costs its notice.
    const sized = turns.size(i);
    const cost = sized.tokenEstimate!;
    if (used + cost <= limit) {
      used += cost;
      items.push(sized);
      if (facts.includes(i)) promoted.add(i.itemId);
    } else if (!facts.includes(i)) omissions.push({ itemId: i.itemId, reason: 'budget' });
  }
  turns.promote(promoted);
  return { items, used, omissions };
}

/**
 * The facts and memory in the context builder's order (seed 004: verified tool facts before memory;
 * within a tier newest first), the mandatory items given so it orders the whole head. A fact that
 * does not fit is not omitted: its turn still sends it (whole or summarised).
 */
function prioritised(
  mandatory: readonly ContextItem[],
  facts: readonly ContextItem[],
  rest: readonly ContextItem[],
  at: { readonly now: string; readonly policyVersion: string },
  count: (text: string) => number,
): ContextItem[] {
  const byId = new Map([...facts, ...rest].map((i) => [i.itemId, i]));
  const pkg = buildContext(
    {
      items: [...mandatory, ...facts, ...rest],
      now: at.now,
      tokenBudget: Number.MAX_SAFE_INTEGER,
      reserveOutputTokens: 0,
      reserveToolTokens: 0,
      policyVersion: at.policyVersion,
      packageId: 'head',
    },
    count,
  );
  return pkg.items.flatMap((i) => {
    const own = byId.get(i.itemId);
    return own ? [own] : [];
  });
}
