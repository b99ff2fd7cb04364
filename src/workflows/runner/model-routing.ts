import type {
  FallbackTrigger,
  ModelRoutePlan,
  PinnedModelRoute,
  RoutePurpose,
} from '../../contract/model-routes.js';
import type { ModelPurpose } from './ports.js';

/**
 * The model error codes that can lead to a fallback, by trigger. Any other failure (bad request,
 * unauthorized, cancelled, unknown route...) fails the call as before: another route cannot help.
 */
const TRIGGER_BY_CODE: Readonly<Record<string, FallbackTrigger>> = {
  'model.provider_unavailable': 'outage',
  'model.connection_lost': 'outage',
  'model.timeout': 'outage',
  'model.rate_limited': 'rate_limited',
  'model.blocked': 'refusal',
  'model.output_invalid': 'invalid_output',
  'model.invalid_tool_arguments': 'invalid_output',
  'model.unknown_tool': 'invalid_output',
};

/** The fallback trigger of a failed model call's code, or undefined when no fallback applies. */
export function fallbackTriggerOf(code: string | undefined): FallbackTrigger | undefined {
  return code === undefined ? undefined : TRIGGER_BY_CODE[code];
}

/** The route version the run pinned for `purpose` (`default` for a purpose without its own). */
export function routeForPurpose(plan: ModelRoutePlan, purpose: ModelPurpose): string {
  return plan.purposes[purpose as RoutePurpose] ?? plan.purposes.default;
}

/** The route version (and its pinned digest) the context builder asks for summaries. Pure. */
export function summarizeRouteOf(plan: ModelRoutePlan): { route: string; digest: string } {
  const route = routeForPurpose(plan, 'summarize');
  return { route, digest: pinnedRoute(plan, route).digest };
}

/** A route version of the plan. @throws Error when the plan does not pin it (the schema forbids it). */
export function pinnedRoute(plan: ModelRoutePlan, route: string): PinnedModelRoute {
  const r = plan.routes[route];
  if (!r) throw new Error(`model route ${route} is not pinned by this run`);
  return r;
}

/** The next route of a call after a failure, and its place in the primary's fallback list. */
export interface FallbackStep {
  readonly route: string;
  /** 1-based position in the primary route's fallback list. */
  readonly position: number;
  readonly trigger: FallbackTrigger;
}

/**
 * The fallback of a call whose route at `position` (0 = the primary) failed with `code`: the first
 * entry after `position` in the **primary** route's ordered fallback list whose triggers include the
 * failure's. The fallbacks' own fallback lists are not followed, so a call visits each route at most
 * once and the chain cannot loop. Undefined when the failure is no trigger or no entry is left.
 */
export function nextFallback(
  plan: ModelRoutePlan,
  primary: string,
  position: number,
  code: string | undefined,
): FallbackStep | undefined {
  const trigger = fallbackTriggerOf(code);
  if (trigger === undefined) return undefined;
  const list = pinnedRoute(plan, primary).fallbacks;
  for (let i = position; i < list.length; i++) {
    const f = list[i]!;
    if (f.on.includes(trigger)) return { route: f.route, position: i + 1, trigger };
  }
  return undefined;
}

/**
 * Usage and cost a failed attempt was billed for (a refused answer is billed by the provider), as
 * the model activity reports it in its failure details; undefined when it reports none.
 */
export interface BilledUsage {
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly costUsd: number;
}

/** The billed usage in a failure's first detail, when it has a well-formed one. */
export function billedUsageOf(detail: unknown): BilledUsage | undefined {
  if (typeof detail !== 'object' || detail === null) return undefined;
  const d = detail as { usage?: { inputTokens?: unknown; outputTokens?: unknown }; costUsd?: unknown };
  const input = d.usage?.inputTokens;
  const output = d.usage?.outputTokens;
  const cost = d.costUsd;
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (!ok(input) || !ok(output) || !ok(cost)) return undefined;
  return { usage: { inputTokens: input, outputTokens: output }, costUsd: cost };
}
