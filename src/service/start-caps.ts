import { z } from 'zod';
import { DEFAULT_LIMITS } from '../workflows/index.js';
import type { Caller } from './caller-identity.js';

/**
 * Caps on what an HTTP starter may ask for (docs/api.md, "Caps"): the budget of a run and the model
 * route it names. Operator configuration (`caps` in the service config), per tenant and per role.
 */

const positive = z.number().positive();
const count = z.number().int().positive();

/** The budget fields a cap bounds (every field of a run's budget except `warnAtFraction`). */
export const BudgetCapSchema = z.strictObject({
  maxSteps: count.optional(),
  maxModelCalls: count.optional(),
  maxToolCalls: count.optional(),
  /** Bounds each entry of a starter's `perToolLimit`. */
  perToolLimit: count.optional(),
  maxInputTokens: count.optional(),
  maxOutputTokens: count.optional(),
  maxCostUsd: positive.optional(),
  deadlineSeconds: positive.optional(),
  maxDuplicateCalls: count.optional(),
  maxStepsWithoutProgress: count.optional(),
});
export type BudgetCap = z.infer<typeof BudgetCapSchema>;

/** A model route name, or a prefix ending in `*` (`scripted/*`); `*` alone allows every route. */
const RoutePattern = z.string().regex(/^[A-Za-z0-9._:/@-]{0,199}\*?$/, 'must be a route name or prefix*');

const CapSchema = z.strictObject({
  budget: BudgetCapSchema.optional(),
  /** The model routes a starter may name. A start that names none gets the profile's own route. */
  modelRoutes: z.array(RoutePattern).max(200).optional(),
});

/** The harness's default budget (what a run gets when it asks for nothing) is the default cap. */
export const DEFAULT_BUDGET_CAP: Required<BudgetCap> = {
  maxSteps: DEFAULT_LIMITS.maxSteps,
  maxModelCalls: DEFAULT_LIMITS.maxModelCalls,
  maxToolCalls: DEFAULT_LIMITS.maxToolCalls,
  perToolLimit: DEFAULT_LIMITS.maxToolCalls,
  maxInputTokens: DEFAULT_LIMITS.maxInputTokens,
  maxOutputTokens: DEFAULT_LIMITS.maxOutputTokens,
  maxCostUsd: DEFAULT_LIMITS.maxCostUsd,
  deadlineSeconds: DEFAULT_LIMITS.deadlineSeconds,
  maxDuplicateCalls: DEFAULT_LIMITS.maxDuplicateCalls,
  maxStepsWithoutProgress: DEFAULT_LIMITS.maxStepsWithoutProgress,
};

export const CapsSchema = z
  .strictObject({
    /** Everyone's cap; a field left out keeps {@link DEFAULT_BUDGET_CAP}'s; no routes by default. */
    default: CapSchema.default({}),
    /** A tenant's cap, field by field over `default`: the most any caller of the tenant may ask. */
    tenants: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/), CapSchema)
      .refine((r) => Object.keys(r).length <= 10_000, 'at most 10000 tenants')
      .default({}),
    /**
     * A start role's cap, field by field, within the tenant's: a caller gets the most generous cap of
     * the start roles they hold (a start role without an entry has the tenant's cap).
     */
    roles: z
      .record(z.string(), CapSchema)
      .refine((r) => Object.keys(r).length <= 100, 'at most 100 roles')
      .default({}),
  })
  .default({ default: {}, tenants: {}, roles: {} });
export type CapsConfig = z.infer<typeof CapsSchema>;

/** A start refused by the caps: HTTP 403. */
export interface CapRefusal {
  readonly code: 'run.budget_over_cap' | 'run.model_route_not_allowed';
  readonly message: string;
}

const routeAllowed = (route: string, patterns: readonly string[]) =>
  patterns.some((p) => (p.endsWith('*') ? route.startsWith(p.slice(0, -1)) : route === p));

/** A caller's cap: a budget bound per field and the model routes they may name. */
export interface CallerCap {
  readonly budget: Required<BudgetCap>;
  /** Route patterns of the tenant (or default) cap. */
  readonly modelRoutes: readonly string[];
  /** True when the caller may name this route: the tenant's patterns allow it, and a start role's do. */
  allowsRoute(route: string): boolean;
}

/**
 * The caller's cap: the tenant's entry over the default, field by field; then, when every start role
 * the caller holds has an entry, the most generous of those roles' caps within the tenant's (a start
 * role without an entry has the tenant's cap).
 */
export function capFor(caps: CapsConfig, caller: Caller, startRoles: readonly string[]): CallerCap {
  const tenant = caps.tenants[caller.tenant];
  const budget = { ...DEFAULT_BUDGET_CAP, ...caps.default.budget, ...tenant?.budget };
  const routes = tenant?.modelRoutes ?? caps.default.modelRoutes ?? [];
  const entries = caller.roles.filter((r) => startRoles.includes(r)).map((r) => caps.roles[r]);
  const roleCaps = entries.every((e) => e !== undefined) ? entries : [];
  const out = { ...budget };
  if (roleCaps.length > 0)
    for (const key of Object.keys(budget) as (keyof BudgetCap)[]) {
      const most = Math.max(...roleCaps.map((c) => c.budget?.[key] ?? budget[key]));
      out[key] = Math.min(budget[key], most);
    }
  return {
    budget: out,
    modelRoutes: routes,
    allowsRoute: (route) =>
      routeAllowed(route, routes) &&
      (roleCaps.length === 0 ||
        roleCaps.some((c) => c.modelRoutes === undefined || routeAllowed(route, c.modelRoutes))),
  };
}

/**
 * Whether a start's budget and model route are within the caller's cap. Linear in the budget's size.
 * @returns the refusal, or undefined.
 */
export function checkStartCaps(
  caps: CapsConfig,
  caller: Caller,
  startRoles: readonly string[],
  start: { readonly budget?: Record<string, unknown>; readonly modelRoute?: string },
): CapRefusal | undefined {
  const cap = capFor(caps, caller, startRoles);
  if (start.modelRoute !== undefined && !cap.allowsRoute(start.modelRoute))
    return {
      code: 'run.model_route_not_allowed',
      message: `model route ${start.modelRoute.slice(0, 200)} is not one you may choose${cap.modelRoutes.length ? ` (allowed: ${cap.modelRoutes.slice(0, 20).join(', ')})` : "; leave it out for the profile's own"}`,
    };
  const over = (field: string, value: unknown, limit: number): CapRefusal | undefined =>
    typeof value === 'number' && value > limit
      ? { code: 'run.budget_over_cap', message: `budget.${field} ${value} is over your cap ${limit}` }
      : undefined;
  for (const [field, value] of Object.entries(start.budget ?? {})) {
    if (field === 'perToolLimit' && value !== null && typeof value === 'object') {
      for (const [tool, n] of Object.entries(value))
        if (over(`perToolLimit.${tool}`, n, cap.budget.perToolLimit))
          return over(`perToolLimit.${tool.slice(0, 100)}`, n, cap.budget.perToolLimit);
      continue;
    }
    const limit = cap.budget[field as keyof BudgetCap] as number | undefined;
    if (limit !== undefined) {
      const refusal = over(field, value, limit);
      if (refusal) return refusal;
    }
  }
  return undefined;
}
