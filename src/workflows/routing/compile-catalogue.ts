import { canonicalJson } from '../../contract/canonical-json.js';
import { jsonDigest } from '../../contract/digest.js';
import type { FactPredicate } from '../policy/rules-schema.js';
import type { CapabilityCatalogue, CompiledDomain, CompiledGate } from './capability-catalogue.js';
import {
  CatalogueSpecSchema,
  DEFAULT_MAX_ROUTE_CHANGES,
  type CapabilityDomainSpec,
  type CatalogueSpec,
} from './capability-domain.js';
import { CatalogueInvalidError, type CatalogueIssue } from './catalogue-error.js';
import { indexTools, resolveTool, type CatalogueTool, type ToolIndex } from './catalogue-tools.js';
import { deepFreeze } from './deep-freeze.js';

/**
 * Compile an app's capability domains into one pinned catalogue: the spec's shape checked (strict,
 * bounded), every tool reference pinned to `name@version` against `tools` (the tools the app
 * registers), and the catalogue checked as a whole: unique domain ids, exactly one fallback that
 * needs no fact, a gate in front of every write tool and only there. The result is canonical
 * (domains by id, tools, facts and gates sorted), deeply frozen, with the digest of its content:
 * the same domains in another order compile to the same digest.
 *
 * Pure and deterministic; meant for definition time (module level of a profile, a test).
 *
 * @throws {CatalogueInvalidError} `routing.catalogue_invalid` with every issue and its path
 *   (`domains/3/gates/0/tool`); paths index the spec as given.
 */
export function compileCatalogue(spec: CatalogueSpec, tools: readonly CatalogueTool[]): CapabilityCatalogue {
  const parsed = CatalogueSpecSchema.safeParse(spec);
  if (!parsed.success) {
    throw new CatalogueInvalidError(
      parsed.error.issues.map((i) => ({ path: i.path.join('/'), code: 'invalid_shape', message: i.message })),
    );
  }
  const valid = parsed.data as CatalogueSpec;
  const issues: CatalogueIssue[] = [...catalogueIssues(valid)];
  const index = indexTools(tools);
  const domains = valid.domains.map((d, i) => compileDomain(d, `domains/${i}`, index, issues));
  if (issues.length) throw new CatalogueInvalidError(issues);
  domains.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const body = {
    id: valid.id,
    version: valid.version,
    maxRouteChanges: valid.maxRouteChanges ?? DEFAULT_MAX_ROUTE_CHANGES,
    fallback: domains.find((d) => d.fallback)!.id,
    domains,
  };
  return deepFreeze({ ...body, digest: jsonDigest(body) });
}

/** Issues of the catalogue as a whole: duplicate ids, fallback count and its entry. */
function catalogueIssues(spec: CatalogueSpec): CatalogueIssue[] {
  const issues: CatalogueIssue[] = [];
  const seen = new Map<string, number>();
  spec.domains.forEach((d, i) => {
    const first = seen.get(d.id);
    if (first !== undefined) {
      issues.push({
        path: `domains/${i}/id`,
        code: 'duplicate_domain',
        message: `${d.id} is also domains/${first}`,
      });
    } else seen.set(d.id, i);
  });
  const fallbacks = spec.domains.flatMap((d, i) => (d.fallback ? [i] : []));
  if (fallbacks.length === 0) {
    issues.push({
      path: 'domains',
      code: 'no_fallback',
      message: 'no domain is the fallback (fallback: true)',
    });
  }
  for (const i of fallbacks.slice(1)) {
    issues.push({
      path: `domains/${i}/fallback`,
      code: 'multiple_fallbacks',
      message: `domains/${fallbacks[0]} is already the fallback`,
    });
  }
  for (const i of fallbacks) {
    const d = spec.domains[i]!;
    if ((d.entry?.length ?? 0) > 0 || (d.requiredFacts?.length ?? 0) > 0) {
      issues.push({
        path: `domains/${i}`,
        code: 'fallback_gated',
        message: 'the fallback must be enterable without any fact (no entry, no requiredFacts)',
      });
    }
  }
  return issues;
}

/** One domain pinned and canonical; its issues are pushed onto `issues`. */
function compileDomain(
  d: CapabilityDomainSpec,
  path: string,
  index: ToolIndex,
  issues: CatalogueIssue[],
): CompiledDomain {
  const effects = new Map<string, CatalogueTool['effect']>();
  d.tools.forEach((ref, j) => {
    const r = resolveTool(ref, index);
    if (r.ok) effects.set(r.key, r.effect);
    else issues.push({ path: `${path}/tools/${j}`, code: r.code, message: r.message });
  });
  const gates: CompiledGate[] = [];
  (d.gates ?? []).forEach((g, j) => {
    const gatePath = `${path}/gates/${j}/tool`;
    const r = resolveTool(g.tool, index);
    if (!r.ok) return void issues.push({ path: gatePath, code: r.code, message: r.message });
    if (!effects.has(r.key)) {
      return void issues.push({
        path: gatePath,
        code: 'gate_not_in_domain',
        message: `${r.key} is not a tool of ${d.id}`,
      });
    }
    if (r.effect !== 'write') {
      return void issues.push({
        path: gatePath,
        code: 'gate_not_write',
        message: `${r.key} is a ${r.effect} tool; gates stand before writes`,
      });
    }
    if (gates.some((x) => x.tool === r.key)) {
      return void issues.push({
        path: gatePath,
        code: 'duplicate_gate',
        message: `${r.key} has a gate already`,
      });
    }
    gates.push({ tool: r.key, kind: g.kind, requiredFacts: sortedUnique(g.requiredFacts ?? []) });
  });
  const writeTools = [...effects]
    .filter(([, e]) => e === 'write')
    .map(([k]) => k)
    .sort();
  for (const w of writeTools) {
    if (!gates.some((g) => g.tool === w)) {
      issues.push({
        path: `${path}/gates`,
        code: 'ungated_write',
        message: `write tool ${w} of ${d.id} has no confirmation or approval gate`,
      });
    }
  }
  const entry = [...(d.entry ?? [])].sort((a, b) => compare(canonicalJson(a), canonicalJson(b)));
  return {
    id: d.id,
    version: d.version,
    description: d.description,
    tools: [...effects.keys()].sort(),
    writeTools,
    entry,
    requiredFacts: sortedUnique([
      ...(d.requiredFacts ?? []),
      ...entry.filter(needsPresence).map((p) => p.fact),
    ]),
    establishes: sortedUnique(d.establishes ?? []),
    gates: gates.sort((a, b) => compare(a.tool, b.tool)),
    fallback: d.fallback === true,
  };
}

/** Whether a condition can hold only when its fact is present (every op but `neq` and `exists: false`). */
export function needsPresence(p: FactPredicate): boolean {
  if (p.op === 'neq') return false;
  if (p.op === 'exists') return p.value;
  return true;
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compare);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
