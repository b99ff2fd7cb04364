import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { HarnessError, RunStatusSchema } from '../../../src/index.js';
import { CASE_DEFAULT_ORDER_ID, CaseInitialStateSchema } from '../business/case-seed.js';
import { SEED_CUSTOMER_ID } from '../business/seed-data.js';
import type { RefundDrills } from '../composition.js';

/** A stable reason code: dotted lower-case words, e.g. `completion.not_satisfied`. */
const ReasonCode = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,30}(?:\.[a-z0-9_]{1,30}){1,3}$/, 'expected a dotted reason code');
const NameVersionText = z.string().regex(/^[a-z][a-z0-9_.-]{0,63}@v[1-9][0-9]*$/, 'expected name@vN');

/**
 * One evaluation case (seed 004 format, e.g. H-RF-017) plus the optional fields the driver needs.
 * Unknown keys are rejected so a typo cannot silently change what a case checks.
 */
export const EvalCaseSchema = z
  .object({
    case_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/),
    description: z.string().max(2000).optional(),
    initial_state: CaseInitialStateSchema,
    user_message: z.string().min(1).max(4000),
    expected_required_facts: z.array(z.string().min(1)).default([]),
    expected_nodes: z.array(z.string().min(1)).default([]),
    forbidden_nodes: z.array(z.string().min(1)).default([]),
    expected_terminal_status: RunStatusSchema,
    /** The terminal reason code the run must end with (a regression case from a failure sample). */
    expected_terminal_code: ReasonCode.optional(),
    /** The customer the task names. Absent: the order's owner (`initial_state.customer_id` or C1001). `null`: none. */
    customer_id: z.string().min(1).max(64).nullable().optional(),
    /**
     * Who signs the run's start, the verified requester (docs/authorization.md, "Who a run is for").
     * Absent: the task's customer. `null`: nobody (an unsigned start: an anonymous run).
     */
    requester: z.string().min(1).max(64).nullable().optional(),
    /** The order the task names. Absent: the seeded order. `null`: none (only what the message says). */
    order_id: z.string().min(1).max(64).nullable().optional(),
    /** `true`: approve every confirmation; `false`: reject the first. Absent: answer none. */
    approve: z.boolean().optional(),
    /** Answers to successive confirmations, in order; wins over `approve`. Stops when they run out. */
    decisions: z
      .array(z.enum(['approve', 'reject']))
      .max(10)
      .optional(),
    /** Send every decision signal twice (a duplicate request); the second must change nothing. */
    duplicate_signals: z.boolean().optional(),
    /** Values for `awaiting_input` slots (e.g. `{ "orderId": "ORD-CASE-1" }`). */
    provide: z.record(z.string(), z.string().min(1).max(200)).optional(),
    /**
     * Fault injection: `refund.create` commits its refund, then hangs without heartbeating past the
     * write's heartbeat timeout, so the call is lost with its effect applied. `reconciler: false` also
     * drops refund.create's reconciler, so only a person can settle it (see `reconcile`).
     */
    fault: z
      .object({ lost_write: z.literal('refund.create'), reconciler: z.boolean().default(true) })
      .strict()
      .optional(),
    /**
     * Fault injection: each listed refund tool fails every call with the code (a terminal business
     * failure before any effect, as a broken connector would), e.g. a failure sample's failed call.
     */
    tool_failures: z
      .array(z.object({ tool: z.string().min(1).max(64), code: ReasonCode }).strict())
      .max(5)
      .optional(),
    /**
     * How the driver, acting as the operator, settles a run waiting with `unknown_write_outcome`:
     * `look_up` finds the effect in the business store by the call's idempotency key and reports it
     * (`succeeded` naming the refund, or `not_applied`). Absent: the run is left waiting.
     */
    reconcile: z.literal('look_up').optional(),
    /** Tools the run should call (default: the capabilities of the expected nodes). */
    expected_tools: z.array(z.string()).optional(),
    /** Profile and policy (`name@vN`), defaults refund.graph@v1 and refund.rules@v1. */
    profile: NameVersionText.optional(),
    policy: NameVersionText.optional(),
    tags: z.array(z.string()).optional(),
  })
  .strict();
export type EvalCase = z.infer<typeof EvalCaseSchema>;

/** A case file that does not parse. */
export class EvalCaseError extends HarnessError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('eval.case_invalid', message, details);
  }
}

/** Parse one case. @throws EvalCaseError naming the first bad fields. */
export function parseEvalCase(raw: unknown, source = 'case'): EvalCase {
  const parsed = EvalCaseSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new EvalCaseError(`${source}: ${issues.join('; ')}`, { source, issues });
  }
  return parsed.data;
}

/**
 * Every `*.json` case under `dir` (recursively), sorted by path. A file may hold one case or an array.
 * @throws EvalCaseError for an unreadable, invalid or duplicate case, or when `dir` holds no case.
 */
export function loadEvalCases(dir: string): EvalCase[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.json')) files.push(p);
    }
  };
  walk(dir);
  const cases: EvalCase[] = [];
  const ids = new Set<string>();
  for (const f of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(f, 'utf8'));
    } catch (err) {
      throw new EvalCaseError(`${f}: not JSON (${(err as Error).message})`, { source: f });
    }
    for (const [i, item] of (Array.isArray(raw) ? raw : [raw]).entries()) {
      const c = parseEvalCase(item, Array.isArray(raw) ? `${f}[${i}]` : f);
      if (ids.has(c.case_id)) throw new EvalCaseError(`${f}: duplicate case_id ${c.case_id}`, { source: f });
      ids.add(c.case_id);
      cases.push(c);
    }
  }
  if (cases.length === 0) throw new EvalCaseError(`no cases under ${dir}`, { source: dir });
  return cases;
}

/** The order the case seeds (the initial state's `order_id` or the case default). */
export function seededOrderId(c: EvalCase): string {
  return c.initial_state.order_id ?? CASE_DEFAULT_ORDER_ID;
}

/** The run's task for a case (`message`, and `customerId` / `orderId` unless the case sets them to null). */
export function caseTask(c: EvalCase): Record<string, unknown> {
  const task: Record<string, unknown> = { message: c.user_message };
  const customer =
    c.customer_id === undefined ? (c.initial_state.customer_id ?? SEED_CUSTOMER_ID) : c.customer_id;
  const order = c.order_id === undefined ? seededOrderId(c) : c.order_id;
  if (customer !== null) task.customerId = customer;
  if (order !== null) task.orderId = order;
  return task;
}

/** Who signs a case's start (its verified requester): `requester`, else the task's customer; none for an anonymous run. */
export function caseRequester(c: EvalCase): string | undefined {
  if (c.requester !== undefined) return c.requester ?? undefined;
  const customer = caseTask(c).customerId;
  return typeof customer === 'string' ? customer : undefined;
}

/** How long a lost write hangs after its commit, and the write heartbeat timeout that declares it lost. */
export const LOST_WRITE_HANG_MS = 6_000;
export const LOST_WRITE_HEARTBEAT_SECONDS = 2;

/** The refund drills a case's faults need (a hang after the commit; no reconciler; failing tools); none without. */
export function caseDrills(c: EvalCase): RefundDrills {
  const failures = c.tool_failures?.length ? { toolFailures: c.tool_failures } : {};
  if (c.fault === undefined) return failures;
  return {
    latency: { perOperationMs: { createRefund: LOST_WRITE_HANG_MS }, phase: 'after_commit_hang' },
    reconcile: c.fault.reconciler,
    ...failures,
  };
}

/** The answers to give to successive confirmations. */
export function caseDecisions(c: EvalCase): readonly ('approve' | 'reject')[] {
  if (c.decisions) return c.decisions;
  if (c.approve === true) return ['approve', 'approve', 'approve'];
  if (c.approve === false) return ['reject'];
  return [];
}

/** `name@vN` -> `{ name, version }`. */
export function splitNameVersion(text: string): { name: string; version: string } {
  const at = text.lastIndexOf('@');
  return { name: text.slice(0, at), version: text.slice(at + 1) };
}
