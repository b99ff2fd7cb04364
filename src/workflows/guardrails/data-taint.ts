import { sha256Hex } from '../../contract/sha256.js';
import type { TaintDigests, TaintUnscanned } from '../../contract/step-io.js';

export type { TaintDigests, TaintUnscanned } from '../../contract/step-io.js';
import { detectPersonalData } from './detect-personal-data.js';
import { detectSecrets } from './detect-secrets.js';
import { GUARDRAIL_MAX_SCAN_CHARS } from './scan-limit.js';
import { collectTextLeaves } from './text-leaves.js';
import { identifierCover } from './trusted-identifiers.js';

/**
 * Data taint (docs/guardrails.md, "Data read from tools"): secrets and personal data a tool returned
 * are remembered by digest, never by value, so a later write that would carry the same value can be
 * held for a person. Pure and deterministic (runs in the workflow sandbox and in activities).
 */

/** A run's facts (the runner's `state.facts`). */
type Facts = Readonly<Record<string, string | number | boolean>>;

/** The kinds of data that taint a run. */
export type TaintKind = 'secret' | 'personal';

/** The fact each kind is kept under (space-separated digests), visible to policies. */
export const TAINT_FACTS: Readonly<Record<TaintKind, string>> = {
  secret: 'taint.secret',
  personal: 'taint.personal',
};

/** Most digests kept per kind (the newest). */
export const MAX_TAINT_DIGESTS = 64;

/** The obligation by which a policy's decision explicitly allows a write carrying tainted data. */
export const ALLOW_TAINTED_OBLIGATION = 'allow.tainted_data';

const WALK = { maxDepth: 32, maxStrings: 2_000 };

const digest = (text: string): string => sha256Hex(text).slice(0, 16);

/**
 * The tainting values in `value`'s strings, by kind, as digests (each at most once). A detection
 * that lies inside an occurrence of one of `exempt` (the run's own id: a tool that echoes it, e.g.
 * in an idempotency key, did not read personal data because the id holds a Luhn-valid digit run) is
 * not one.
 *
 * Reads at most {@link GUARDRAIL_MAX_SCAN_CHARS} characters over all strings, in order (the string
 * that crosses the limit is read up to it), in time linear in what it reads, whatever the value
 * holds. What it does not read is never skipped silently: the result says so in `unscanned`. Tool
 * arguments (at most 64 KiB of JSON, `TOOL_ARGUMENT_BOUNDS`) always fit. Never throws.
 */
export function taintDigestsOf(value: unknown, exempt: ReadonlySet<string> = new Set()): TaintDigests {
  const secret = new Set<string>();
  const personal = new Set<string>();
  const walk = collectTextLeaves(value, WALK);
  let unscanned: TaintUnscanned | undefined = walk.truncated;
  let budget = GUARDRAIL_MAX_SCAN_CHARS;
  for (const leaf of walk.leaves) {
    let text = leaf.text;
    if (text.length > budget) {
      unscanned = 'scan_limit';
      text = text.slice(0, budget);
    }
    budget -= text.length;
    if (text.length === 0) continue;
    const covered = identifierCover(text, exempt);
    for (const d of detectSecrets(text))
      if (!covered(d.span)) secret.add(digest(text.slice(d.span.start, d.span.end)));
    for (const d of detectPersonalData(text))
      if (!covered(d.span)) personal.add(digest(text.slice(d.span.start, d.span.end)));
  }
  return {
    secret: [...secret].slice(0, MAX_TAINT_DIGESTS),
    personal: [...personal].slice(0, MAX_TAINT_DIGESTS),
    ...(unscanned !== undefined ? { unscanned } : {}),
  };
}

/** The digests a run holds for `kind` (from its facts). */
function heldDigests(facts: Facts, kind: TaintKind): string[] {
  const held = facts[TAINT_FACTS[kind]];
  return typeof held === 'string' && held.length > 0 ? held.split(' ') : [];
}

/**
 * The facts to set after a tool returned `found`: each kind's held digests plus the new ones, the
 * newest {@link MAX_TAINT_DIGESTS}; only kinds that changed.
 */
export function taintFactUpdates(facts: Facts, found: TaintDigests): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of ['secret', 'personal'] as const) {
    const held = heldDigests(facts, kind);
    const fresh = found[kind].filter((d) => /^[0-9a-f]{16}$/.test(d) && !held.includes(d));
    if (fresh.length > 0) out[TAINT_FACTS[kind]] = [...held, ...fresh].slice(-MAX_TAINT_DIGESTS).join(' ');
  }
  return out;
}

/** The kinds of tainted data (read earlier in the run) that `args` would carry; empty when none. */
export function taintedKindsIn(args: unknown, facts: Facts): TaintKind[] {
  const inArgs = taintDigestsOf(args);
  return (['secret', 'personal'] as const).filter((kind) => {
    const held = heldDigests(facts, kind);
    return held.length > 0 && inArgs[kind].some((d) => held.includes(d));
  });
}

/**
 * `text` with every secret the detector finds replaced by `[secret]` (for summaries shown to people
 * and kept in events). Linear in the length of `text`; not capped here, because the workflow's one
 * caller masks tool arguments, which are bounded before (`TOOL_ARGUMENT_BOUNDS`: 64 KiB of JSON, at
 * most six times that once escaped), and a cap would change the summary of runs already recorded.
 * Never throws.
 */
export function maskSecrets(text: string): string {
  let out = '';
  let at = 0;
  for (const d of [...detectSecrets(text)].sort((a, b) => a.span.start - b.span.start)) {
    out += text.slice(at, d.span.start) + '[secret]';
    at = d.span.end;
  }
  return out + text.slice(at);
}
