import { z } from 'zod';
import { FactPredicateSchema, type FactPredicate } from '../policy/rules-schema.js';

/**
 * What an app declares: capability domains (the seed's capability domains or subgraphs) and the
 * catalogue spec that gathers them. Pure data; `compileCatalogue` validates and pins it.
 */

/** Before which a write tool of a domain may run: a customer confirmation or an approval by a person. */
export type GateKind = 'confirmation' | 'approval';

/** The gate in front of one write tool of a domain. */
export interface WriteGateSpec {
  /** A tool of the domain, `name` or `name@version`; it must be a `write` tool. */
  readonly tool: string;
  /** `confirmation` (the customer confirms the action's details) or `approval` (a person approves). */
  readonly kind: GateKind;
  /** Verified facts that must hold before the write (proved by `checkReachability`). */
  readonly requiredFacts?: readonly string[];
}

/** One capability domain as an app declares it. */
export interface CapabilityDomainSpec {
  /** Lowercase dotted id, unique in the catalogue (`cancel_pending_order`). */
  readonly id: string;
  /** `vN`. */
  readonly version: string;
  /** What the domain is for: the text a routing model reads. */
  readonly description: string;
  /** The tools the domain may use, `name` or `name@version` (a bare name must have one version). */
  readonly tools: readonly string[];
  /** Conditions over verified facts, all of which must hold to enter (`order.status in [pending]`). */
  readonly entry?: readonly FactPredicate[];
  /** Verified facts that must be present to enter (whatever their value). */
  readonly requiredFacts?: readonly string[];
  /** Facts the domain's tools can verify (what a run may know after a visit); used by the static check. */
  readonly establishes?: readonly string[];
  /** The gate in front of each of its write tools; every write tool needs one. */
  readonly gates?: readonly WriteGateSpec[];
  /** The declared fallback (`escalate`): exactly one per catalogue, enterable without any fact. */
  readonly fallback?: boolean;
}

/** A set of domains to compile into one pinned catalogue. */
export interface CatalogueSpec {
  /** Lowercase dotted id (`retail.domains`). */
  readonly id: string;
  /** `vN`. */
  readonly version: string;
  /** How often the route may change within a run (A→B→A is two changes); default 4, at most 32. */
  readonly maxRouteChanges?: number;
  readonly domains: readonly CapabilityDomainSpec[];
}

/** Default of {@link CatalogueSpec.maxRouteChanges}. */
export const DEFAULT_MAX_ROUTE_CHANGES = 4;

const ID = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*$/;
const VERSION = /^v[1-9][0-9]*$/;
const TOOL_REF = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+(?:@v[1-9][0-9]*)?$/;

const idSchema = () => z.string().max(64).regex(ID, 'must be a lowercase dotted id');
const versionSchema = () => z.string().max(16).regex(VERSION, 'must be vN');
const factsSchema = () =>
  z.array(z.string().max(100).regex(ID, 'must be a lowercase dotted fact name')).max(20);

/** The shape of a {@link CatalogueSpec} (strict, bounded). Built on first parse. */
export const CatalogueSpecSchema = z.lazy(() =>
  z
    .object({
      id: idSchema(),
      version: versionSchema(),
      maxRouteChanges: z.number().int().min(0).max(32).optional(),
      domains: z
        .array(
          z
            .object({
              id: idSchema(),
              version: versionSchema(),
              description: z.string().min(1).max(1000),
              tools: z.array(z.string().max(120).regex(TOOL_REF, 'must be name or name@vN')).max(64),
              entry: z.array(FactPredicateSchema).max(20).optional(),
              requiredFacts: factsSchema().optional(),
              establishes: factsSchema().optional(),
              gates: z
                .array(
                  z
                    .object({
                      tool: z.string().max(120).regex(TOOL_REF, 'must be name or name@vN'),
                      kind: z.enum(['confirmation', 'approval']),
                      requiredFacts: factsSchema().optional(),
                    })
                    .strict(),
                )
                .max(64)
                .optional(),
              fallback: z.boolean().optional(),
            })
            .strict(),
        )
        .min(1)
        .max(64),
    })
    .strict(),
);
