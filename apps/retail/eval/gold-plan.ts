import { RETAIL_DOMAINS as D, retailDomainSpecs } from '../workflow/retail-domains.js';
import { retailToolName } from '../workflow/retail-tool-names.js';

/** One call the gold model makes: the benchmark's tool name and its arguments. */
export interface GoldCall {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** One step of a gold plan: consecutive calls of one domain. */
export interface GoldStep {
  readonly stepId: string;
  readonly domain: string;
  readonly calls: readonly GoldCall[];
}

/** How a plan is built from a call list. */
export interface GoldPlanOptions {
  /** Insert a `get_order_details` read before a write on an order that is not the current one. Default true. */
  readonly insertReads?: boolean;
  /** The order the run's facts hold already (from the transcript), for a replan. */
  readonly currentOrder?: string;
}

/** The benchmark's write tools, by the domain that owns them. */
const WRITE_DOMAIN: Readonly<Record<string, string>> = {
  cancel_pending_order: D.cancelPendingOrder,
  modify_pending_order_address: D.modifyPendingOrder,
  modify_pending_order_items: D.modifyPendingOrder,
  modify_pending_order_payment: D.modifyPendingOrder,
  return_delivered_order_items: D.returnDeliveredOrder,
  exchange_delivered_order_items: D.exchangeDeliveredOrder,
  modify_user_address: D.userAddress,
};

/** Domains entered for a write (every step of them is gated by a customer confirmation). */
export const WRITE_DOMAINS: ReadonlySet<string> = new Set(Object.values(WRITE_DOMAIN));

const DOMAIN_TOOLS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  retailDomainSpecs().map((d) => [d.id, new Set(d.tools)]),
);

/** Whether the benchmark tool `name` is one of the seven writes. */
export function isWriteTool(name: string): boolean {
  return WRITE_DOMAIN[name] !== undefined;
}

/** The domain a call belongs to, given the domain of the step being built (for reads). */
export function domainOfCall(name: string, current: string | undefined): string {
  if (name === 'find_user_id_by_email' || name === 'find_user_id_by_name_zip') return D.authenticate;
  if (name === 'transfer_to_human_agents') return D.escalate;
  const write = WRITE_DOMAIN[name];
  if (write !== undefined) return write;
  if (current !== undefined && DOMAIN_TOOLS.get(current)?.has(retailToolName(name))) return current;
  return D.orderDetails;
}

/** The order a call reads or writes (its `order_id`), if any. */
export function orderOfCall(call: GoldCall): string | undefined {
  const id = call.args.order_id;
  return typeof id === 'string' ? id : undefined;
}

/** Whether a call sets the run's current order (a `get_order_details` read or a write on an order). */
function setsCurrentOrder(call: GoldCall): boolean {
  return call.name === 'get_order_details' || (isWriteTool(call.name) && orderOfCall(call) !== undefined);
}

/**
 * The calls the run makes for `calls`: a `get_order_details(order)` read before each write on an
 * order other than the current one (unless `insertReads` is false).
 */
export function expandCalls(calls: readonly GoldCall[], options: GoldPlanOptions = {}): GoldCall[] {
  const out: GoldCall[] = [];
  let current = options.currentOrder;
  for (const call of calls) {
    const order = orderOfCall(call);
    if (options.insertReads !== false && isWriteTool(call.name) && order !== undefined && order !== current) {
      out.push({ name: 'get_order_details', args: { order_id: order } });
    }
    out.push(call);
    if (setsCurrentOrder(call)) current = order;
  }
  return out;
}

/** The longest objective a plan step may have (the planner's bound). */
export const MAX_OBJECTIVE = 500;

/** Most calls in one step: a domain session runs at most 8 model turns (one call per answer), one kept for the end. */
export const MAX_STEP_CALLS = 7;

/**
 * Group already expanded calls into steps: consecutive calls of one domain form a step (a new step
 * of the same domain past {@link MAX_STEP_CALLS} calls or when the objective would pass
 * {@link MAX_OBJECTIVE}); an inserted order read
 * before a write always goes to an `order_details` step, and so does a read after a write step's write
 * (the planner ends a step once its success condition holds). Step ids are `<prefix>s<n>`.
 */
export function groupSteps(calls: readonly GoldCall[], prefix = ''): GoldStep[] {
  const steps: { domain: string; calls: GoldCall[] }[] = [];
  for (const [i, call] of calls.entries()) {
    const last = steps.at(-1);
    const next = calls[i + 1];
    const readBeforeWrite =
      call.name === 'get_order_details' &&
      next !== undefined &&
      isWriteTool(next.name) &&
      orderOfCall(next) === orderOfCall(call) &&
      last !== undefined &&
      WRITE_DOMAINS.has(last.domain);
    // A step ends as soon as its success condition holds: after a write step's write nothing more of
    // it would run, so a later read starts a step of its own.
    const afterWrite =
      last !== undefined && WRITE_DOMAINS.has(last.domain) && last.calls.some((c) => isWriteTool(c.name));
    const domain =
      readBeforeWrite || (afterWrite && !isWriteTool(call.name))
        ? domainOfCall(call.name, undefined)
        : domainOfCall(call.name, last?.domain);
    const fits =
      last !== undefined &&
      last.calls.length < MAX_STEP_CALLS &&
      formatObjective([...last.calls, call]).length <= MAX_OBJECTIVE;
    if (last !== undefined && last.domain === domain && fits) last.calls.push(call);
    else steps.push({ domain, calls: [call] });
  }
  return steps.map((s, i) => ({ stepId: `${prefix}s${i + 1}`, domain: s.domain, calls: s.calls }));
}

/** A step's objective: its calls as `name {json args}` joined by `; ` (read back by {@link parseObjective}). */
export function formatObjective(calls: readonly GoldCall[]): string {
  return calls.map((c) => `${c.name} ${JSON.stringify(c.args)}`).join('; ');
}

/** The end of the JSON object starting at `start` (index after its `}`), or -1. */
function jsonObjectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth += 1;
    else if (ch === '}') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The calls of an objective written by {@link formatObjective}; stops at the first piece it cannot read. */
export function parseObjective(objective: string): GoldCall[] {
  const calls: GoldCall[] = [];
  let pos = 0;
  const text = objective.trim();
  while (pos < text.length) {
    const name = /^([a-z_]+) \{/.exec(text.slice(pos));
    if (!name) break;
    const start = pos + name[1]!.length + 1;
    const end = jsonObjectEnd(text, start);
    if (end < 0) break;
    try {
      calls.push({ name: name[1]!, args: JSON.parse(text.slice(start, end)) as Record<string, unknown> });
    } catch {
      break;
    }
    pos = end;
    if (text.startsWith('; ', pos)) pos += 2;
    else break;
  }
  return calls;
}

/** A plan id the planner accepts: letters, digits, `_`, `.`, `-`, at most 40 characters. */
export function planIdOf(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 40) || 'gold';
}

/** The success conditions of a step, given the order the run's facts hold after it. */
function successCondition(
  step: GoldStep,
  order: string | undefined,
): { fact: string; op: 'eq'; value: unknown }[] {
  if (step.domain === D.authenticate) return [{ fact: 'user.authenticated', op: 'eq', value: true }];
  if (step.domain === D.escalate) return [];
  if (step.domain === D.userAddress)
    return [{ fact: 'user.last_action', op: 'eq', value: 'modify_user_address' }];
  if (WRITE_DOMAINS.has(step.domain)) {
    const lastWrite = [...step.calls].reverse().find((c) => isWriteTool(c.name));
    return lastWrite ? [{ fact: 'order.last_action', op: 'eq', value: lastWrite.name }] : [];
  }
  return order !== undefined
    ? [{ fact: 'order.id', op: 'eq', value: order }]
    : [{ fact: 'user.authenticated', op: 'eq', value: true }];
}

/**
 * The plan document (the `plan` call's answer) of `steps`; `currentOrder` is the order the run's facts
 * hold before the first step (a replan).
 */
export function planDocument(
  planId: string,
  goal: string,
  steps: readonly GoldStep[],
  currentOrder?: string,
): Record<string, unknown> {
  let order = currentOrder;
  const orderAfter = steps.map((s) => {
    for (const c of s.calls) if (setsCurrentOrder(c)) order = orderOfCall(c);
    return order;
  });
  // The planner wants at least one step: with nothing to do, one escalate step without calls.
  if (steps.length === 0) {
    return planDocument(planId, goal, [{ stepId: 'none', domain: D.escalate, calls: [] }], currentOrder);
  }
  return {
    plan_id: planIdOf(planId),
    goal: goal.slice(0, 1000) || 'Help the customer.',
    assumptions: [],
    steps: steps.map((s, i) => ({
      step_id: s.stepId,
      objective: formatObjective(s.calls) || 'No action is needed.',
      capability: s.domain,
      dependencies: i === 0 ? [] : [steps[i - 1]!.stepId],
      success_condition: successCondition(s, orderAfter[i]),
      failure_route: 'replan',
      max_attempts: 1,
      ...(WRITE_DOMAINS.has(s.domain) ? { gate: 'confirmation' } : {}),
    })),
    replan_conditions: [],
  };
}
