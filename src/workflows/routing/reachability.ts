import type { CapabilityCatalogue, CompiledDomain, CompiledGate } from './capability-catalogue.js';
import type { GateKind } from './capability-domain.js';

/**
 * The static cross-domain check: over every route the catalogue admits, no write tool is reached
 * before its required facts are guaranteed, and each gate is as strong as required.
 *
 * The model. A run starts with `initialFacts` verified and may enter any domain whose required facts
 * (declared, or read by an entry condition) can be present: facts become possibly present when a
 * visited domain `establishes` them. The router checks a domain's required facts on entry, so on a
 * path of domains the facts *guaranteed* are the initial facts plus the required facts of every
 * domain entered (verified facts are assumed never withdrawn within a run). The fallback needs no
 * fact, so it guarantees none. A violation is a reachable (domain, write tool) whose gate's
 * required facts are not all guaranteed on some path there, or whose gate is weaker than
 * `requiredGates` asks; each is reported once, with the shortest path that shows it.
 */

/** What the check assumes beyond the catalogue. */
export interface ReachabilityOptions {
  /** Facts verified before any route (default none). */
  readonly initialFacts?: readonly string[];
  /** The gate a write tool (`name@version`) needs at least (`approval` is stronger than `confirmation`). */
  readonly requiredGates?: Readonly<Record<string, GateKind>>;
  /** Most path states explored before the check gives up (default 10 000): it then fails closed. */
  readonly maxStates?: number;
}

/** One way a route reaches a write too early. */
export type ReachabilityViolation =
  | {
      readonly code: 'write_before_facts';
      readonly domain: string;
      readonly tool: string;
      /** Facts the gate requires that the path does not guarantee. */
      readonly missingFacts: readonly string[];
      /** The domains entered, in order, the last one holding the write. */
      readonly path: readonly string[];
    }
  | {
      readonly code: 'gate_too_weak';
      readonly domain: string;
      readonly tool: string;
      readonly gate: GateKind;
      readonly required: GateKind;
      readonly path: readonly string[];
    }
  | { readonly code: 'state_limit'; readonly explored: number };

/** The check's verdict. `unreachable`: domains no route enters (not a violation, worth a look). */
export interface ReachabilityReport {
  readonly ok: boolean;
  readonly violations: readonly ReachabilityViolation[];
  readonly unreachable: readonly string[];
  /** Path states explored. */
  readonly explored: number;
}

interface PathState {
  readonly domain: CompiledDomain;
  readonly possible: ReadonlySet<string>;
  readonly guaranteed: ReadonlySet<string>;
  readonly path: readonly string[];
}

const STRENGTH: Record<GateKind, number> = { confirmation: 1, approval: 2 };

/**
 * Run the check (breadth first, so each violation comes with a shortest path). Pure and deterministic;
 * never throws. Exploring more than `maxStates` path states fails closed with a `state_limit`
 * violation.
 */
export function checkReachability(
  catalogue: CapabilityCatalogue,
  options: ReachabilityOptions = {},
): ReachabilityReport {
  const maxStates = options.maxStates ?? 10_000;
  const initial = new Set(options.initialFacts ?? []);
  const violations = new Map<string, ReachabilityViolation>();
  const seen = new Set<string>();
  const entered = new Set<string>();
  const queue: PathState[] = [];
  const enqueue = (from: {
    possible: ReadonlySet<string>;
    guaranteed: ReadonlySet<string>;
    path: readonly string[];
  }) => {
    for (const d of catalogue.domains) {
      if (!d.requiredFacts.every((f) => from.possible.has(f))) continue;
      const possible = union(from.possible, d.requiredFacts, d.establishes);
      const guaranteed = union(from.guaranteed, d.requiredFacts);
      const key = `${d.id}|${[...possible].sort().join(',')}|${[...guaranteed].sort().join(',')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push({ domain: d, possible, guaranteed, path: [...from.path, d.id] });
    }
  };
  enqueue({ possible: initial, guaranteed: initial, path: [] });
  let explored = 0;
  while (explored < queue.length) {
    if (explored >= maxStates) {
      return { ok: false, violations: [{ code: 'state_limit', explored }], unreachable: [], explored };
    }
    const s = queue[explored++]!;
    entered.add(s.domain.id);
    for (const gate of s.domain.gates) checkGate(s, gate, options.requiredGates ?? {}, violations);
    enqueue(s);
  }
  const list = [...violations.values()];
  const unreachable = catalogue.domains.filter((d) => !entered.has(d.id)).map((d) => d.id);
  return { ok: list.length === 0, violations: list, unreachable, explored };
}

function checkGate(
  s: PathState,
  gate: CompiledGate,
  requiredGates: Readonly<Record<string, GateKind>>,
  out: Map<string, ReachabilityViolation>,
): void {
  const missing = gate.requiredFacts.filter((f) => !s.guaranteed.has(f));
  const key = `facts|${s.domain.id}|${gate.tool}`;
  if (missing.length && !out.has(key)) {
    out.set(key, {
      code: 'write_before_facts',
      domain: s.domain.id,
      tool: gate.tool,
      missingFacts: missing,
      path: s.path,
    });
  }
  const required = Object.prototype.hasOwnProperty.call(requiredGates, gate.tool)
    ? requiredGates[gate.tool]
    : undefined;
  const weakKey = `gate|${s.domain.id}|${gate.tool}`;
  if (required && STRENGTH[gate.kind] < STRENGTH[required] && !out.has(weakKey)) {
    out.set(weakKey, {
      code: 'gate_too_weak',
      domain: s.domain.id,
      tool: gate.tool,
      gate: gate.kind,
      required,
      path: s.path,
    });
  }
}

function union(base: ReadonlySet<string>, ...more: readonly (readonly string[])[]): Set<string> {
  const out = new Set(base);
  for (const list of more) for (const f of list) out.add(f);
  return out;
}
