import { DATA_CLOSE, DATA_NOTICE, DATA_OPEN, isSystemInstruction, renderDataBlock } from './render.js';
import type { ModelMessage } from '../model/types.js';
import type { ContextItem, ContextPackage } from './types.js';

/**
 * True when `sourceRef` is the fact `key` or a version/part of it: equal, or starting with
 * `key#` or `key/` (`order#3` and `order/lines` count for `order`; `orders` does not).
 */
export function refMatches(sourceRef: string, key: string): boolean {
  return sourceRef === key || sourceRef.startsWith(`${key}#`) || sourceRef.startsWith(`${key}/`);
}

const matchesAny = (sourceRef: string, keys: readonly string[]): boolean =>
  keys.some((k) => refMatches(sourceRef, k));
const ratio = (num: number, den: number, empty: number): number => (den === 0 ? empty : num / den);
const facts = (pkg: Pick<ContextPackage, 'items'>): ContextItem[] =>
  pkg.items.filter((i) => i.kind !== 'instruction');

/**
 * Share of the package's non-instruction items that are relevant (their `sourceRef` matches one of
 * `relevantRefs`). 1 when the package carries no such items.
 */
export function contextPrecision(
  pkg: Pick<ContextPackage, 'items'>,
  relevantRefs: readonly string[],
): number {
  const items = facts(pkg);
  return ratio(items.filter((i) => matchesAny(i.sourceRef, relevantRefs)).length, items.length, 1);
}

/** Share of `requiredRefs` covered by at least one item of the package. 1 when nothing is required. */
export function requiredFactRecall(
  pkg: Pick<ContextPackage, 'items'>,
  requiredRefs: readonly string[],
): number {
  return ratio(
    requiredRefs.filter((k) => pkg.items.some((i) => refMatches(i.sourceRef, k))).length,
    requiredRefs.length,
    1,
  );
}

/**
 * Share of the package's items that are stale at `now`: expired, not yet effective, or a tool fact
 * older than another tool fact from the same source in the same package. 0 for an empty package.
 */
export function staleContextRate(pkg: Pick<ContextPackage, 'items'>, now: string | Date): number {
  const t = now instanceof Date ? now.getTime() : Date.parse(now);
  const at = (iso: string | undefined, fallback: number): number =>
    iso === undefined ? fallback : Date.parse(iso);
  const stale = pkg.items.filter((i) => {
    if (at(i.effectiveAt, -Infinity) > t || at(i.expiresAt, Infinity) <= t) return true;
    if (i.kind !== 'tool_fact') return false;
    return pkg.items.some(
      (o) =>
        o !== i &&
        o.kind === 'tool_fact' &&
        o.sourceRef === i.sourceRef &&
        at(o.effectiveAt, -Infinity) > at(i.effectiveAt, -Infinity),
    );
  });
  return ratio(stale.length, pkg.items.length, 0);
}

/**
 * Share of the package's items the call was not entitled to see: a `sourceRef` outside
 * `allowedRefs`, or an instruction without system trust. 0 for an empty package.
 */
export function unauthorizedContextRate(
  pkg: Pick<ContextPackage, 'items'>,
  allowedRefs: readonly string[],
): number {
  const bad = pkg.items.filter(
    (i) => (i.kind === 'instruction' && i.trust !== 'system') || !matchesAny(i.sourceRef, allowedRefs),
  );
  return ratio(bad.length, pkg.items.length, 0);
}

export interface SeparationResult {
  readonly pass: boolean;
  readonly violations: readonly string[];
}

const OUTSIDE_KINDS: ReadonlySet<string> = new Set(['tool_fact', 'retrieved_evidence', 'memory']);

/** True for items sent as they are: harness text (system trust) and the model's own earlier turns. */
const sentAsIs = (i: ContextItem): boolean => i.trust === 'system' || i.message?.role === 'assistant';

/**
 * Checks instruction/data separation of rendered `messages` against the package: system messages
 * hold only system-trust instruction items and the data notice (which must be there when the
 * package has data, and never inside a data block); every item that is neither harness text nor the
 * model's own turn appears exactly once, escaped, inside its own fence in a non-system message; no
 * text outside fences in non-system messages other than harness text and the model's turns; no
 * instruction item without system trust, and no tool fact, evidence or memory with system trust. Works for both renderings: `renderContext`
 * (one data message) and the model activity's `renderRequest` (one message per item).
 */
export function instructionDataSeparation(
  pkg: Pick<ContextPackage, 'items'>,
  messages: readonly ModelMessage[],
): SeparationResult {
  const violations: string[] = [];
  for (const i of pkg.items) {
    if (i.kind === 'instruction' && i.trust !== 'system')
      violations.push(`instruction ${i.itemId} has trust ${i.trust}`);
    // Tool output, retrieved documents and memory come from outside the harness: never system text.
    if (OUTSIDE_KINDS.has(i.kind) && i.trust === 'system')
      violations.push(`data item ${i.itemId} (${i.kind}) has trust system`);
  }
  let systemText = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const dataItems = pkg.items.filter((i) => !sentAsIs(i));
  if (dataItems.length > 0 && !systemText.includes(DATA_NOTICE))
    violations.push('the data notice is not in a system message');
  for (const i of pkg.items.filter(isSystemInstruction)) systemText = systemText.replace(i.content, '');
  if (systemText.replace(DATA_NOTICE, '').trim() !== '')
    violations.push('system message contains text that is not a system instruction');

  let rest = messages
    .filter((m) => m.role !== 'system')
    .map((m) => m.content)
    .join('\n\n');
  for (const i of dataItems) {
    const block = renderDataBlock(i);
    const first = rest.indexOf(block);
    if (first < 0) {
      violations.push(`item ${i.itemId} is not inside its data fence`);
      continue;
    }
    if (rest.indexOf(block, first + block.length) >= 0)
      violations.push(`item ${i.itemId} appears more than once`);
    rest = rest.slice(0, first) + rest.slice(first + block.length);
  }
  if (rest.includes(DATA_NOTICE)) violations.push('the data notice is outside the system message');
  for (const i of pkg.items.filter((x) => sentAsIs(x) && !isSystemInstruction(x)))
    rest = rest.replace(i.content, '');
  if (rest.includes(DATA_OPEN) || rest.includes(DATA_CLOSE))
    violations.push('a data fence does not belong to a package item');
  else if (rest.trim() !== '') violations.push('text outside data fences in a non-system message');
  return { pass: violations.length === 0, violations };
}

/** Share of `true` results (e.g. separation passes over many cases). 1 for no cases. */
export function passRate(results: readonly boolean[]): number {
  return ratio(results.filter(Boolean).length, results.length, 1);
}

export interface StepTokens {
  readonly tokens: number;
  readonly succeeded: boolean;
}

/**
 * All tokens spent (failed steps included) divided by the number of successful steps. `null` when
 * no step succeeded (the ratio is undefined, not zero).
 */
export function tokensPerSuccessfulStep(steps: readonly StepTokens[]): number | null {
  const ok = steps.filter((s) => s.succeeded).length;
  if (ok === 0) return null;
  return steps.reduce((n, s) => n + s.tokens, 0) / ok;
}
