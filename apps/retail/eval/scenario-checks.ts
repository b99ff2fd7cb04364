import {
  WRITE_DOMAINS,
  domainOfCall,
  expandCalls,
  groupSteps,
  isWriteTool,
  type GoldCall,
} from './gold-plan.js';
import { progressOf, sameCall } from './transcript.js';
import { codeExpected, type ExplainedRefusal, type RetailScenario } from './variants.js';

/** One tool call the run made (from its invocations), by benchmark name. */
export interface ObservedCall extends GoldCall {
  readonly seq: number;
  readonly status: string;
}

/** One stored event, reduced to what the checks read. */
export interface ObservedEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Everything the evaluation observed of one scenario's run. Plain data: the checks are pure. */
export interface ScenarioObservation {
  readonly workflowId: string;
  /** The run's status when the driver stopped, or `error` when it could not be driven. */
  readonly status: string;
  readonly terminalCode: string | null;
  readonly calls: readonly ObservedCall[];
  readonly events: readonly ObservedEvent[];
  readonly initialDigest: string;
  readonly expectedDigest: string;
  readonly finalDigest: string;
  readonly confirmations: number;
  readonly durationMs: number;
  readonly error?: string;
}

/** A call the policy (or the pipeline) refused before its effect, with its codes. */
export interface Refusal {
  readonly tool: string;
  readonly codes: readonly string[];
}

/** The checks and measures of one scenario. */
export interface ScenarioChecks {
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly dbMatches: boolean;
  /**
   * Gold: gold actions found in order among the run's calls with equal args (a gold action refused by
   * design counts when its refusal was seen), of all gold actions.
   */
  readonly goldActionsFound: number;
  readonly goldActions: number;
  /** Calls refused before their effect (gold: false refusals), those explained by design excepted. */
  readonly refusals: readonly Refusal[];
  /** Gold: calls refused as the scenario expected by design ({@link RetailScenario.explainedRefusals}). */
  readonly explainedRefusals: readonly ExplainedRefusal[];
  /** The reason codes of the run's refusals ({@link refusalCodesOf}). */
  readonly codes: readonly string[];
  /** Gold: the write domains the task's writes need, and those the run's routes entered. */
  readonly expectedWriteDomains: readonly string[];
  readonly enteredWriteDomains: readonly string[];
  readonly routeCorrect: boolean | null;
  /** Gold: planned steps whose calls were all made in order, of all planned steps. */
  readonly stepsCompleted: number;
  readonly stepsPlanned: number;
  readonly replans: number;
}

/** Reason codes in an event's data: strings under keys naming a code (`code`, `reasonCode`, `errorCode`, `reasonCodes`, ...). */
export function codesIn(value: unknown, depth = 0, key = ''): string[] {
  if (depth > 5 || value === null || value === undefined) return [];
  if (typeof value === 'string') return /code/i.test(key) && /^[a-z_]+\.[a-z_.]+$/.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => codesIn(v, depth + 1, key));
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => codesIn(v, depth + 1, k));
  return [];
}

const ROUTE_REFUSALS = new Set([
  'route.excluded_domain',
  'route.unknown_domain',
  'route.invalid_proposal',
  'route.no_candidate',
  'route.change_limit',
]);

/**
 * The reason codes of the run's refusals only (an allow's or a normal route's codes are not): calls
 * rejected before their effect (`tool.failed` `rejected`), policy denials, rejected decisions, the
 * planner's rejected plans, failed steps and fallbacks, the router's refusals.
 */
export function refusalCodesOf(events: readonly ObservedEvent[]): string[] {
  const codes = events.flatMap((e): string[] => {
    const d = e.data;
    switch (e.type) {
      case 'tool.failed':
        return d.status === 'rejected' ? codesIn(d) : [];
      case 'policy.decided':
        return d.decision === 'deny' ? codesIn(d) : [];
      case 'human.decided':
        return d.decision === 'rejected' ? codesIn(d) : [];
      case 'plan.rejected':
      case 'plan.fallback':
      case 'route.tool_refused':
        return codesIn(d);
      case 'plan.step_completed':
        return d.outcome === 'failed' ? codesIn(d) : [];
      case 'route.decided':
        return typeof d.reasonCode === 'string' && ROUTE_REFUSALS.has(d.reasonCode) ? [d.reasonCode] : [];
      default:
        return [];
    }
  });
  return [...new Set(codes)].sort();
}

/** The refusals of a run: `tool.failed` events with status `rejected`. */
export function refusalsOf(events: readonly ObservedEvent[]): Refusal[] {
  return events
    .filter((e) => e.type === 'tool.failed' && e.data.status === 'rejected')
    .map((e) => ({
      tool: typeof e.data.tool === 'string' ? e.data.tool : '',
      codes: [...new Set(codesIn(e.data))],
    }));
}

/** The routes the run's `route.decided` events took. */
export function routesOf(events: readonly ObservedEvent[]): string[] {
  return events
    .filter((e) => e.type === 'route.decided' && typeof e.data.route === 'string')
    .map((e) => String(e.data.route));
}

/** Replans: the planner's `plan.replanned` events (else `plan` model calls beyond the first). */
export function replansOf(events: readonly ObservedEvent[]): number {
  const replanned = events.filter((e) => e.type === 'plan.replanned').length;
  if (replanned > 0) return replanned;
  const plans = events.filter((e) => e.type === 'model.started' && e.data.purpose === 'plan').length;
  return Math.max(0, plans - 1);
}

/** Planned steps whose calls were all made, in order (the run's calls matched against the steps' calls). */
function stepsCompleted(steps: readonly { calls: readonly GoldCall[] }[], made: readonly GoldCall[]): number {
  const flat = steps.flatMap((s) => s.calls);
  const done = progressOf(flat, made);
  let n = 0;
  let end = 0;
  for (const s of steps) {
    end += s.calls.length;
    if (end <= done) n += 1;
  }
  return n;
}

/** Check one scenario's observation. Pure. */
export function checkScenario(s: RetailScenario, o: ScenarioObservation): ScenarioChecks {
  const failures: string[] = [];
  if (o.error) failures.push(`could not drive the run: ${o.error}`);
  const dbMatches = o.finalDigest === o.expectedDigest;
  if (!dbMatches)
    failures.push(
      o.finalDigest === o.initialDigest
        ? 'database unchanged, expected changes'
        : 'database differs from the expected one',
    );
  const codes = refusalCodesOf(o.events);
  const made: GoldCall[] = o.calls.map((c) => ({ name: c.name, args: c.args }));
  const gold = s.expected.kind === 'gold';
  const { explained, refusals } = gold
    ? explainRefusals(refusalsOf(o.events), s.explainedRefusals)
    : { explained: [], refusals: refusalsOf(o.events) };
  if (gold && explained.length < s.explainedRefusals.length)
    failures.push(
      `expected refusals by design not seen: ${s.explainedRefusals.length - explained.length} of ${s.explainedRefusals.length}`,
    );
  const goldWrites = s.goldCalls.filter((c) => isWriteTool(c.name));
  const expectedWriteDomains = gold
    ? [...new Set(goldWrites.map((c) => domainOfCall(c.name, undefined)))].sort()
    : [];
  const enteredWriteDomains = [...new Set(routesOf(o.events).filter((r) => WRITE_DOMAINS.has(r)))].sort();
  // A gold action refused by design, its refusal seen, is done: the run is matched against the rest.
  const handled = (calls: readonly GoldCall[]): GoldCall[] =>
    calls.filter((c) => !explained.some((e) => sameCall(e.call, c)));
  const steps = groupSteps(expandCalls(handled(s.script.calls), { insertReads: s.script.insertReads }));
  if (gold) {
    if (o.status !== 'succeeded')
      failures.push(`status ${o.status}${o.terminalCode ? ` (${o.terminalCode})` : ''}, expected succeeded`);
    if (refusals.length > 0)
      failures.push(
        `gold actions refused: ${refusals.map((r) => `${r.tool} ${r.codes.join('/')}`).join(', ')}`,
      );
  } else if (s.expected.kind === 'refused') {
    const expectedCodes = s.expected.codes;
    if (!codes.some((c) => codeExpected(c, expectedCodes)))
      failures.push(
        `no expected refusal code (${expectedCodes.join(', ')}) among ${codes.join(', ') || 'none'}`,
      );
  }
  return {
    passed: failures.length === 0,
    failures,
    dbMatches,
    goldActionsFound: gold ? progressOf(handled(s.goldCalls), made) + explained.length : 0,
    goldActions: gold ? s.goldCalls.length : 0,
    refusals,
    explainedRefusals: explained,
    codes,
    expectedWriteDomains,
    enteredWriteDomains,
    routeCorrect: gold ? sameSet(expectedWriteDomains, enteredWriteDomains) : null,
    stepsCompleted: stepsCompleted(steps, made),
    stepsPlanned: steps.length,
    replans: replansOf(o.events),
  };
}

/**
 * Each refusal matched to one expected refusal by design of the same tool whose code it carries (each
 * expectation matches once); the rest stay refusals. Pure.
 */
function explainRefusals(
  refusals: readonly Refusal[],
  expected: readonly ExplainedRefusal[],
): { explained: ExplainedRefusal[]; refusals: Refusal[] } {
  const open = [...expected];
  const explained: ExplainedRefusal[] = [];
  const rest: Refusal[] = [];
  for (const r of refusals) {
    const i = open.findIndex((e) => e.tool === r.tool && r.codes.includes(e.code));
    if (i < 0) rest.push(r);
    else explained.push(...open.splice(i, 1));
  }
  return { explained, refusals: rest };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
