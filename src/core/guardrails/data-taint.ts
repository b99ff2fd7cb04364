import { sha256Hex } from '../../contract/sha256.js';
import { detectPersonalData } from './detect-personal-data.js';
import { detectSecrets } from './detect-secrets.js';
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

/** Digests of the tainting values a tool result carried (16 hex characters of SHA-256 each). */
export interface TaintDigests {
  readonly secret: readonly string[];
  readonly personal: readonly string[];
}

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
 * not one. Never throws.
 */
export function taintDigestsOf(value: unknown, exempt: ReadonlySet<string> = new Set()): TaintDigests {
  const secret = new Set<string>();
  const personal = new Set<string>();
  for (const leaf of collectTextLeaves(value, WALK).leaves) {
    const covered = identifierCover(leaf.text, exempt);
    for (const d of detectSecrets(leaf.text))
      if (!covered(d.span)) secret.add(digest(leaf.text.slice(d.span.start, d.span.end)));
    for (const d of detectPersonalData(leaf.text))
      if (!covered(d.span)) personal.add(digest(leaf.text.slice(d.span.start, d.span.end)));
  }
  return {
    secret: [...secret].slice(0, MAX_TAINT_DIGESTS),
    personal: [...personal].slice(0, MAX_TAINT_DIGESTS),
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

/** `text` with every secret the detector finds replaced by `[secret]` (for summaries shown to people and kept in events). */
export function maskSecrets(text: string): string {
  let out = '';
  let at = 0;
  for (const d of [...detectSecrets(text)].sort((a, b) => a.span.start - b.span.start)) {
    out += text.slice(at, d.span.start) + '[secret]';
    at = d.span.end;
  }
  return out + text.slice(at);
}
