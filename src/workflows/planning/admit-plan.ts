import type { PolicyFacts } from '../policy/policy.js';
import { domainOf, type CapabilityCatalogue, type CompiledDomain } from '../routing/capability-catalogue.js';
import { exclusionOf } from '../routing/domain-admission.js';
import { RouteReasonCodes } from '../routing/route-reason-codes.js';
import { DEFAULT_PLAN_LIMITS, type Plan, type PlanLimits, type PlanStep } from './plan.js';
import { PLAN_CHECKER_VERSION, PlanReasonCodes, type PlanViolationCode } from './plan-reason-codes.js';

/** Why a plan is rejected: a code from the fixed list, the step it concerns, and a short detail. */
export interface PlanViolation {
  readonly code: PlanViolationCode;
  readonly stepId?: string;
  readonly detail: string;
}

/** The checker's verdict. `order` is the execution order (dependencies first, else the listed order). */
export type PlanAdmission =
  | {
      readonly admitted: true;
      readonly order: readonly string[];
      readonly checkerVersion: string;
      readonly limits: PlanLimits;
    }
  | {
      readonly admitted: false;
      readonly violations: readonly PlanViolation[];
      readonly checkerVersion: string;
      readonly limits: PlanLimits;
    };

/** Most violations listed in one verdict (the rest are not; the plan is rejected either way). */
const MAX_VIOLATIONS = 20;

/**
 * Admit or reject `plan` before anything of it runs (issue 38): a pure, versioned check
 * (`plan-checker@v1`) in workflow code. Rejected, with every violation found (at most 20):
 * - more steps than `limits.maxSteps` (`plan.too_many_steps`), a step allowing more attempts than
 *   `limits.maxAttemptsPerStep` (`plan.attempts_exceeded`), two steps with one id (`plan.duplicate_step`);
 * - a capability that is no domain of the catalogue (`plan.unknown_capability`);
 * - a dependency on no step (`plan.unknown_dependency`), dependencies in a cycle (`plan.dependency_cycle`);
 * - a step in a domain with write tools that names no gate, or `confirmation` where the domain's writes
 *   need `approval` (`plan.gate_missing`);
 * - a step whose domain the router could never enter when the step runs: a fact the domain requires
 *   that is neither verified now nor established by a domain of a step it (transitively) depends on
 *   (`plan.facts_not_established`), or an entry condition false now over facts no such step can
 *   change (`plan.capability_excluded`). So every step's capability is among the candidates the
 *   route can reach by the plan's own dependencies; the router still decides when the step runs.
 * Deterministic; linear in steps × dependencies; never throws for any plan of `readPlanProposal`'s shape.
 */
export function admitPlan(
  catalogue: CapabilityCatalogue,
  plan: Plan,
  facts: PolicyFacts,
  limits: Partial<PlanLimits> = {},
): PlanAdmission {
  const bounds: PlanLimits = { ...DEFAULT_PLAN_LIMITS, ...limits };
  const violations: PlanViolation[] = [];
  const add = (code: PlanViolationCode, detail: string, stepId?: string): void => {
    if (violations.length < MAX_VIOLATIONS) violations.push({ code, detail, ...(stepId ? { stepId } : {}) });
  };
  if (plan.steps.length > bounds.maxSteps)
    add(PlanReasonCodes.tooManySteps, `${plan.steps.length} steps, at most ${bounds.maxSteps}`);
  const byId = new Map<string, PlanStep>();
  for (const s of plan.steps) {
    if (byId.has(s.stepId)) add(PlanReasonCodes.duplicateStep, `step id ${s.stepId} repeats`, s.stepId);
    else byId.set(s.stepId, s);
    if (s.maxAttempts > bounds.maxAttemptsPerStep)
      add(
        PlanReasonCodes.attemptsExceeded,
        `${s.maxAttempts} attempts, at most ${bounds.maxAttemptsPerStep}`,
        s.stepId,
      );
    const domain = domainOf(catalogue, s.capability);
    if (!domain) add(PlanReasonCodes.unknownCapability, `no domain ${s.capability}`, s.stepId);
    else checkGate(domain, s, add);
    for (const d of s.dependencies)
      if (!plan.steps.some((o) => o.stepId === d))
        add(PlanReasonCodes.unknownDependency, `no step ${d}`, s.stepId);
  }
  const order = topologicalOrder(byId);
  if (!order) add(PlanReasonCodes.dependencyCycle, 'the dependencies form a cycle');
  else checkFacts(catalogue, plan.steps, byId, facts, add);
  return violations.length === 0 && order
    ? { admitted: true, order, checkerVersion: PLAN_CHECKER_VERSION, limits: bounds }
    : { admitted: false, violations, checkerVersion: PLAN_CHECKER_VERSION, limits: bounds };
}

type Add = (code: PlanViolationCode, detail: string, stepId?: string) => void;

const GATE_STRENGTH = { confirmation: 1, approval: 2 } as const;

function checkGate(domain: CompiledDomain, step: PlanStep, add: Add): void {
  if (domain.gates.length === 0) return;
  const needed = domain.gates.some((g) => g.kind === 'approval') ? 'approval' : 'confirmation';
  if (step.gate === undefined || GATE_STRENGTH[step.gate] < GATE_STRENGTH[needed])
    add(
      PlanReasonCodes.gateMissing,
      `domain ${domain.id} writes behind ${needed}; the step names ${step.gate ?? 'none'}`,
      step.stepId,
    );
}

/** Steps in dependency order, ties in the listed order; undefined on a cycle. Unknown dependencies are ignored. */
function topologicalOrder(byId: ReadonlyMap<string, PlanStep>): string[] | undefined {
  const done = new Set<string>();
  const order: string[] = [];
  const ids = [...byId.keys()];
  while (order.length < ids.length) {
    const next = ids.find(
      (id) => !done.has(id) && byId.get(id)!.dependencies.every((d) => done.has(d) || !byId.has(d)),
    );
    if (next === undefined) return undefined;
    done.add(next);
    order.push(next);
  }
  return order; // of duplicate ids (reported) the first is kept
}

/** The domains of every step `id` depends on, transitively (the dependencies are acyclic here). */
function ancestors(id: string, byId: ReadonlyMap<string, PlanStep>, seen = new Set<string>()): Set<string> {
  for (const d of byId.get(id)?.dependencies ?? []) {
    if (seen.has(d) || !byId.has(d)) continue;
    seen.add(d);
    ancestors(d, byId, seen);
  }
  return seen;
}

function checkFacts(
  catalogue: CapabilityCatalogue,
  steps: readonly PlanStep[],
  byId: ReadonlyMap<string, PlanStep>,
  facts: PolicyFacts,
  add: Add,
): void {
  for (const s of steps) {
    const domain = domainOf(catalogue, s.capability);
    if (!domain || domain.fallback || byId.get(s.stepId) !== s) continue;
    const establishable = new Set<string>();
    for (const a of ancestors(s.stepId, byId))
      for (const f of domainOf(catalogue, byId.get(a)!.capability)?.establishes ?? []) establishable.add(f);
    const missing = domain.requiredFacts.filter(
      (f) => !Object.prototype.hasOwnProperty.call(facts, f) && !establishable.has(f),
    );
    if (missing.length) {
      add(PlanReasonCodes.factsNotEstablished, `domain ${domain.id} needs ${missing.join(', ')}`, s.stepId);
      continue;
    }
    const excluded = exclusionOf(domain, facts);
    if (
      excluded?.reasonCode === RouteReasonCodes.conditionFalse &&
      !excluded.facts.some((f) => establishable.has(f))
    )
      add(
        PlanReasonCodes.capabilityExcluded,
        `domain ${domain.id} is excluded on ${excluded.facts.join(', ')}`,
        s.stepId,
      );
  }
}
