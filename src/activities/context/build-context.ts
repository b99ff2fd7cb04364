import { z } from 'zod';
import { ContextError } from './errors.js';
import { DATA_NOTICE, isSystemInstruction, renderItemText } from './render.js';
import { TOKENS_PER_MESSAGE, countTokens } from './tokenizer.js';
import { ContextItemSchema } from './types.js';
import type { TokenEncoding } from './tokenizer.js';
import type { ContextItem, ContextPackage, OmissionReason } from './types.js';

export const BuildContextInputSchema = z.object({
  items: z.array(ContextItemSchema),
  /** Build time (workflow time passed in), ISO-8601 or Date. */
  now: z.union([z.iso.datetime({ offset: true }), z.date()]),
  /** The model's context window (or the route's input cap), in tokens. */
  tokenBudget: z.number().int().positive(),
  reserveOutputTokens: z.number().int().nonnegative(),
  /** Room for tool definitions and tool-call turns. */
  reserveToolTokens: z.number().int().nonnegative(),
  policyVersion: z.string().min(1),
  packageId: z.string().min(1),
  encoding: z.enum(['o200k_base', 'cl100k_base']).optional(),
});
export type BuildContextInput = z.input<typeof BuildContextInputSchema>;

/**
 * Priority tier of an item (lower first), per seed 004: 1 system instructions, 2 task state,
 * 3 verified tool facts, 4 rule evidence, 5 conversation, 6 governed memory, 7 unverified tool
 * facts. `undefined`: never included (an instruction without system trust).
 */
export function tierOf(item: Pick<ContextItem, 'kind' | 'trust'>): number | undefined {
  switch (item.kind) {
    case 'instruction':
      return item.trust === 'system' ? 1 : undefined;
    case 'task_state':
      return 2;
    case 'tool_fact':
      return item.trust === 'untrusted' ? 7 : 3;
    case 'retrieved_evidence':
      return 4;
    case 'conversation':
      return 5;
    case 'memory':
      return 6;
  }
}

const MANDATORY_TIERS = new Set([1, 2]);
const time = (iso: string | undefined, fallback: number): number =>
  iso === undefined ? fallback : Date.parse(iso);

interface Candidate {
  readonly item: ContextItem;
  readonly order: number;
  readonly tier: number;
}

/** Keeps only the newest tool fact per `sourceRef` (by `effectiveAt`, then input order). */
function supersededToolFacts(cands: readonly Candidate[]): Set<string> {
  const newest = new Map<string, Candidate>();
  for (const c of cands) {
    if (c.item.kind !== 'tool_fact') continue;
    const cur = newest.get(c.item.sourceRef);
    if (cur === undefined || time(c.item.effectiveAt, -Infinity) >= time(cur.item.effectiveAt, -Infinity))
      newest.set(c.item.sourceRef, c);
  }
  const out = new Set<string>();
  for (const c of cands) {
    if (c.item.kind === 'tool_fact' && newest.get(c.item.sourceRef) !== c) out.add(c.item.itemId);
  }
  return out;
}

/**
 * Selects the minimal sufficient context for one model call. Drops items expired or not yet
 * effective at `now`, keeps only the newest tool fact per source, never includes an instruction
 * without system trust, then fills `tokenBudget - reserveOutputTokens - reserveToolTokens` tier by
 * tier (see {@link tierOf}; within a tier higher `priority`, then newer `effectiveAt`, first).
 * Token counts come from a real tokenizer over each item's rendered form. Items that do not fit are
 * recorded in `omittedItemRefs`. Pure and deterministic.
 *
 * `count` counts tokens instead of `encoding` (the model activity passes its route's tokenizer).
 *
 * Throws {@link ContextError}: `context.invalid_input` (schema, duplicate ids),
 * `context.budget_invalid` (reserves exhaust the budget), `context.budget_exceeded` (system
 * instructions and task state alone do not fit).
 */
export function buildContext(input: BuildContextInput, count?: (text: string) => number): ContextPackage {
  const parsed = BuildContextInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') || '(root)';
    throw new ContextError(
      'context.invalid_input',
      `invalid context input at ${path}: ${issue?.message ?? 'invalid'}`,
      { path },
    );
  }
  const args = parsed.data;
  const encoding: TokenEncoding = args.encoding ?? 'o200k_base';
  const tokens = count ?? ((text: string) => countTokens(text, encoding));
  const now = args.now instanceof Date ? args.now.getTime() : Date.parse(args.now);
  const ids = new Set<string>();
  for (const item of args.items) {
    if (ids.has(item.itemId))
      throw new ContextError('context.invalid_input', `duplicate context item id ${item.itemId}`, {
        itemId: item.itemId,
      });
    ids.add(item.itemId);
  }
  const available = args.tokenBudget - args.reserveOutputTokens - args.reserveToolTokens;
  if (available <= 0) {
    throw new ContextError(
      'context.budget_invalid',
      `reserves (${args.reserveOutputTokens} output + ${args.reserveToolTokens} tool) leave no room in a budget of ${args.tokenBudget}`,
      {
        tokenBudget: args.tokenBudget,
      },
    );
  }

  const droppedExpiredRefs: string[] = [];
  const omissions: { itemId: string; reason: OmissionReason }[] = [];
  const live: Candidate[] = [];
  args.items.forEach((item, order) => {
    if (time(item.effectiveAt, -Infinity) > now || time(item.expiresAt, Infinity) <= now) {
      droppedExpiredRefs.push(item.itemId);
      return;
    }
    const tier = tierOf(item);
    if (tier === undefined) omissions.push({ itemId: item.itemId, reason: 'untrusted_instruction' });
    else
      live.push({
        item: { ...item, tokenEstimate: tokens(`${renderItemText(item)}\n\n`) },
        order,
        tier,
      });
  });
  const superseded = supersededToolFacts(live);
  const candidates = live.filter((c) => {
    if (!superseded.has(c.item.itemId)) return true;
    omissions.push({ itemId: c.item.itemId, reason: 'superseded' });
    return false;
  });

  const framing = 2 * TOKENS_PER_MESSAGE + tokens(`${DATA_NOTICE}\n\n`);
  let used = framing;
  const mandatory = candidates.filter((c) => MANDATORY_TIERS.has(c.tier));
  for (const c of mandatory) used += c.item.tokenEstimate ?? 0;
  if (used > available) {
    throw new ContextError(
      'context.budget_exceeded',
      `system instructions and task state need ${used} tokens but only ${available} are available`,
      {
        needed: used,
        available,
      },
    );
  }
  const chosen: Candidate[] = [...mandatory];
  const optional = candidates
    .filter((c) => !MANDATORY_TIERS.has(c.tier))
    .sort(
      (a, b) =>
        a.tier - b.tier ||
        (b.item.priority ?? 0) - (a.item.priority ?? 0) ||
        time(b.item.effectiveAt, -Infinity) - time(a.item.effectiveAt, -Infinity) ||
        a.order - b.order,
    );
  for (const c of optional) {
    const cost = c.item.tokenEstimate ?? 0;
    if (used + cost <= available) {
      used += cost;
      chosen.push(c);
    } else omissions.push({ itemId: c.item.itemId, reason: 'budget' });
  }
  chosen.sort((a, b) => a.tier - b.tier || a.order - b.order);
  const items = chosen.map((c) => c.item);
  const hasData = items.some((i) => !isSystemInstruction(i));
  const messages = (items.some(isSystemInstruction) || hasData ? 1 : 0) + (hasData ? 1 : 0);
  const totalTokenEstimate =
    items.reduce((n, i) => n + (i.tokenEstimate ?? 0), 0) +
    messages * TOKENS_PER_MESSAGE +
    (hasData ? tokens(`${DATA_NOTICE}\n\n`) : 0);
  const order = new Map(args.items.map((i, idx) => [i.itemId, idx]));
  omissions.sort((a, b) => (order.get(a.itemId) ?? 0) - (order.get(b.itemId) ?? 0));
  return {
    packageId: args.packageId,
    policyVersion: args.policyVersion,
    items,
    totalTokenEstimate,
    availableTokens: available,
    omittedItemRefs: omissions.map((o) => o.itemId),
    omissions,
    droppedExpiredRefs,
  };
}
