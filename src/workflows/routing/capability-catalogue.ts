import type { FactPredicate } from '../policy/rules-schema.js';
import type { GateKind } from './capability-domain.js';

/**
 * The compiled, pinned capability catalogue: what `compileCatalogue` returns and what `decideRoute`
 * and `checkReachability` read. Canonical (sorted, tools pinned to `name@version`), deeply frozen,
 * identified by id, version and the digest of its content.
 */

/** A write gate with its tool pinned. */
export interface CompiledGate {
  /** `name@version`. */
  readonly tool: string;
  readonly kind: GateKind;
  /** Sorted, unique. */
  readonly requiredFacts: readonly string[];
}

/** A domain with its tools pinned. */
export interface CompiledDomain {
  readonly id: string;
  readonly version: string;
  readonly description: string;
  /** `name@version`, sorted, unique. */
  readonly tools: readonly string[];
  /** The `name@version` of its write tools, sorted. */
  readonly writeTools: readonly string[];
  /** Sorted by their canonical JSON. */
  readonly entry: readonly FactPredicate[];
  /**
   * The declared required facts plus every fact an entry condition reads that does not hold when the
   * fact is absent (all but `neq` and `exists: false`); sorted, unique.
   */
  readonly requiredFacts: readonly string[];
  /** Sorted, unique. */
  readonly establishes: readonly string[];
  /** Sorted by tool. */
  readonly gates: readonly CompiledGate[];
  readonly fallback: boolean;
}

/** The pinned catalogue. */
export interface CapabilityCatalogue {
  readonly id: string;
  readonly version: string;
  readonly maxRouteChanges: number;
  /** The id of the fallback domain. */
  readonly fallback: string;
  /** Sorted by id. */
  readonly domains: readonly CompiledDomain[];
  /** `sha256:…` of the canonical JSON of every field above. */
  readonly digest: string;
}

/** The catalogue's identity, as recorded in every route decision. */
export interface CatalogueRef {
  readonly id: string;
  readonly version: string;
  readonly digest: string;
}

/** The identity of `catalogue`. Never throws. */
export function catalogueRef(catalogue: CapabilityCatalogue): CatalogueRef {
  return { id: catalogue.id, version: catalogue.version, digest: catalogue.digest };
}

/** The domain `id` of `catalogue`, or undefined. Never throws. */
export function domainOf(catalogue: CapabilityCatalogue, id: string): CompiledDomain | undefined {
  return catalogue.domains.find((d) => d.id === id);
}
