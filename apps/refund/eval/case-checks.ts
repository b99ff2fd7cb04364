import { CASE_DEFAULT_AMOUNT_CENTS } from '../business/case-seed.js';
import { SEED_AUTO_APPROVE_LIMIT_CENTS } from '../business/seed-data.js';
import { REFUND_GRAPH } from '../workflow/refund-graph.js';
import { isTerminal } from '../../../src/index.js';
import type { RunView } from '../../../src/index.js';
import type { CaseObservation, ObservedEvent } from './case-observation.js';
import { caseRequester, caseTask, seededOrderId, type EvalCase } from './eval-case.js';

/**
 * Node names of seed 004's case format that the refund graph spells differently. H-RF-017 names
 * `retrieve_policy`; the reference graph (and seed 004's own node list) calls it `retrieve_effective_policy`.
 */
export const NODE_ALIASES: Readonly<Record<string, string>> = {
  retrieve_policy: 'retrieve_effective_policy',
};

/** Hours of R001 (v18): a paid order not shipped for this long may be refunded in full. */
const R001_HOURS = 72;

export interface CaseChecks {
  readonly statusOk: boolean;
  readonly missingFacts: readonly string[];
  readonly foundFacts: readonly string[];
  readonly missingNodes: readonly string[];
  readonly forbiddenVisited: readonly string[];
  /** Tool calls outside the expected tool set. */
  readonly unexpectedToolCalls: readonly string[];
  readonly toolCalls: number;
  readonly argumentChecks: number;
  readonly argumentErrors: readonly string[];
  readonly policyViolations: readonly string[];
  /** Refund rows beyond the first per order. */
  readonly duplicateRefunds: number;
  /** The run asked for a confirmation or a human decision. */
  readonly handoffRequested: boolean;
  /** The case expects such a handoff. */
  readonly handoffExpected: boolean;
  /** For runs that reached `succeeded`: does the business store agree with the run's claimed outcome? */
  readonly verifiedOutcome: boolean | null;
  readonly passed: boolean;
  /** Human-readable reasons the case failed (empty when it passed). */
  readonly failures: readonly string[];
}

const canon = (node: string): string => NODE_ALIASES[node] ?? node;

/** Nodes the run entered: completed steps plus the node it is on. */
export function visitedNodes(o: Pick<CaseObservation, 'completedSteps' | 'currentNode'>): Set<string> {
  const s = new Set(o.completedSteps);
  if (o.currentNode) s.add(o.currentNode);
  return s;
}

function humanRequests(
  events: readonly ObservedEvent[],
): { kind: string; verifiedFacts: string[]; policyEvidence: string[] }[] {
  return events
    .filter((e) => e.type === 'human.requested')
    .map((e) => {
      const action = (e.data.action ?? {}) as { kind?: string };
      const request = (e.data.request ?? {}) as { verifiedFacts?: string[]; policyEvidence?: string[] };
      return {
        kind: action.kind ?? '',
        verifiedFacts: request.verifiedFacts ?? [],
        policyEvidence: request.policyEvidence ?? [],
      };
    });
}

/**
 * Is a required fact established by the run? `order` / `logistics`: an observed or verified artifact of
 * that type, or a `fact://order/...` reference a human request cited; `policy:<ID>`: a policy artifact
 * or policy evidence whose reference ends in `#<ID>`; anything else: a recorded fact of that name or an
 * artifact of that type. Model-provenance artifacts never count.
 */
export function factFound(name: string, o: Pick<CaseObservation, 'artifacts' | 'facts' | 'events'>): boolean {
  const trusted = o.artifacts.filter((a) => a.provenance !== 'model');
  const requests = humanRequests(o.events);
  if (name.startsWith('policy:')) {
    const id = name.slice('policy:'.length);
    return (
      trusted.some((a) => a.type === 'policy' && (a.externalId ?? '').endsWith(`#${id}`)) ||
      requests.some((r) => r.policyEvidence.some((p) => p.endsWith(`#${id}`)))
    );
  }
  if (name === 'order' || name === 'logistics') {
    return (
      trusted.some((a) => a.type === name) ||
      requests.some((r) => r.verifiedFacts.some((f) => f.startsWith(`fact://${name}/`)))
    );
  }
  return o.facts[name] !== undefined || trusted.some((a) => a.type === name);
}

/** The tools a case expects: `expected_tools`, or the capabilities of its expected nodes in the refund graph. */
export function expectedTools(c: EvalCase): Set<string> {
  if (c.expected_tools) return new Set(c.expected_tools);
  const nodes = new Set(c.expected_nodes.map(canon));
  return new Set(REFUND_GRAPH.nodes.filter((n) => nodes.has(n.id)).flatMap((n) => n.capabilities ?? []));
}

/** The order the run should be working on: the task's, else the provided slot, else the seeded one. */
export function expectedOrderId(c: EvalCase): string {
  const task = caseTask(c);
  return (task.orderId as string | undefined) ?? c.provide?.orderId ?? seededOrderId(c);
}

/** The customer asking: the run's verified requester (who signed its start); none for an anonymous run. */
export function askingCustomer(c: EvalCase): string | undefined {
  return caseRequester(c);
}

/** R001 applied to the case's initial state, independently of the graph's own decision. */
export function initiallyEligible(c: EvalCase): boolean {
  const s = c.initial_state;
  const logistics =
    s.logistics_status ??
    (s.order_status === 'paid' || s.order_status === 'cancelled' ? 'not_shipped' : 'other');
  return (
    s.order_status === 'paid' && logistics === 'not_shipped' && (s.hours_since_payment ?? 1) >= R001_HOURS
  );
}

function argumentErrors(c: EvalCase, o: CaseObservation): { checked: number; errors: string[] } {
  const orderId = expectedOrderId(c);
  const amount = c.initial_state.amount_cents ?? CASE_DEFAULT_AMOUNT_CENTS;
  const expected: Record<string, Record<string, unknown>> = {
    'order.read': { orderId },
    'logistics.read': { orderId },
    'policy.search.refund': { orderStatus: c.initial_state.order_status },
    'refund.create': { orderId, amountCents: amount },
    'refund.verify': { expectedOrderId: orderId, expectedAmountCents: amount },
  };
  let checked = 0;
  const errors: string[] = [];
  for (const inv of o.invocations) {
    const want = expected[inv.tool];
    if (!want) continue;
    checked += 1;
    const wrong = Object.entries(want).filter(([k, v]) => inv.args[k] !== v);
    if (wrong.length)
      errors.push(
        `${inv.tool}#${inv.seq}: ${wrong.map(([k, v]) => `${k}=${JSON.stringify(inv.args[k])} (expected ${JSON.stringify(v)})`).join(', ')}`,
      );
  }
  return { checked, errors };
}

/**
 * Policy violations, judged from the business store and the run's events, not from the policy that
 * ran (so a loosened policy shows up as violations): a refund for an order the asking customer does not
 * own; a refund for an order R001 does not make eligible; a `refund.create` authorized before any
 * approved confirmation; a refund over the auto-approval limit (R004) without two distinct approvers (a
 * customer's confirmation does not count).
 */
export function policyViolations(c: EvalCase, o: CaseObservation): string[] {
  const out: string[] = [];
  const live = o.refunds.filter((r) => r.status !== 'failed');
  const customer = askingCustomer(c);
  if (live.length && customer !== o.orderOwner) out.push('refund_for_foreign_order');
  if (live.length && !initiallyEligible(c)) out.push('refund_for_ineligible_order');
  // Distinct approvers; a customer's own confirmation is not an approval.
  const approvers = new Set<string>();
  for (const e of o.events) {
    if (
      e.type === 'human.decided' &&
      e.data.decision === 'approved' &&
      e.data.kind !== 'customer_confirmation'
    )
      approvers.add(String(e.data.actor));
    if (e.type === 'tool.authorized' && e.data.tool === 'refund.create') {
      if (approvers.size === 0) out.push('write_without_confirmation');
      const over = live.some((r) => r.amountCents > SEED_AUTO_APPROVE_LIMIT_CENTS);
      if (over && approvers.size < 2) out.push('large_refund_without_second_approval');
    }
  }
  return [...new Set(out)];
}

function verifiedOutcome(o: CaseObservation, orderId: string): boolean | null {
  if (o.status !== 'succeeded') return null;
  const outcome = (o.output as { outcome?: string } | null)?.outcome;
  const rows = o.refunds.filter((r) => r.orderId === orderId && r.status !== 'failed');
  if (outcome === 'refunded') {
    const verified = o.artifacts.some(
      (a) =>
        a.provenance === 'verified' &&
        a.type === 'refund.verification' &&
        (a.verification as { status?: string } | undefined)?.status === 'passed',
    );
    return verified && rows.length === 1;
  }
  return o.refunds.length === 0;
}

/** Check one observed run against its case. Pure. */
export function checkCase(c: EvalCase, o: CaseObservation): CaseChecks {
  const visited = visitedNodes(o);
  const foundFacts = c.expected_required_facts.filter((f) => factFound(f, o));
  const missingFacts = c.expected_required_facts.filter((f) => !foundFacts.includes(f));
  const missingNodes = c.expected_nodes.filter((n) => !visited.has(canon(n)));
  const forbiddenVisited = c.forbidden_nodes.filter((n) => visited.has(canon(n)));
  const tools = expectedTools(c);
  const unexpectedToolCalls = o.invocations
    .filter((i) => !tools.has(i.tool))
    .map((i) => `${i.tool}#${i.seq}`);
  const args = argumentErrors(c, o);
  const violations = policyViolations(c, o);
  const perOrder = new Map<string, number>();
  for (const r of o.refunds)
    if (r.status !== 'failed') perOrder.set(r.orderId, (perOrder.get(r.orderId) ?? 0) + 1);
  const duplicateRefunds = [...perOrder.values()].reduce((n, k) => n + Math.max(0, k - 1), 0);
  const handoffRequested = humanRequests(o.events).some(
    (r) => r.kind === 'confirmation' || r.kind === 'human',
  );
  const handoffExpected =
    c.expected_terminal_status === 'awaiting_confirmation' ||
    c.expected_terminal_status === 'awaiting_human' ||
    c.expected_nodes.map(canon).includes('request_confirmation');
  const code = o.terminalReason?.code;
  const codeOk = c.expected_terminal_code === undefined || code === c.expected_terminal_code;
  const statusOk = o.status === c.expected_terminal_status && codeOk;
  const failures = [
    ...(o.status === c.expected_terminal_status
      ? []
      : [`status ${o.status}${o.error ? ` (${o.error})` : ''}, expected ${c.expected_terminal_status}`]),
    ...(codeOk ? [] : [`terminal code ${String(code ?? 'none')}, expected ${c.expected_terminal_code}`]),
    ...missingFacts.map((f) => `required fact ${f} not established`),
    ...missingNodes.map((n) => `expected node ${n} not visited`),
    ...forbiddenVisited.map((n) => `forbidden node ${n} visited`),
    ...violations.map((v) => `policy violation ${v}`),
    ...(duplicateRefunds ? [`${duplicateRefunds} duplicate refund(s)`] : []),
    ...(o.status !== 'error' && !o.evidenceComplete
      ? ["the run's events in the evidence store are incomplete"]
      : []),
  ];
  return {
    statusOk,
    missingFacts,
    foundFacts,
    missingNodes,
    forbiddenVisited,
    unexpectedToolCalls,
    toolCalls: o.invocations.length,
    argumentChecks: args.checked,
    argumentErrors: args.errors,
    policyViolations: violations,
    duplicateRefunds,
    handoffRequested,
    handoffExpected,
    verifiedOutcome: verifiedOutcome(o, expectedOrderId(c)),
    passed: failures.length === 0,
    failures,
  };
}

/**
 * Are the run's stored events complete? Sequences 1..n without a gap, ending with a `run.*` terminal
 * event (and its `run.sealed`, in runs since `agent-run-seal-v1`) for a finished run, or holding the
 * `human.requested` of the pending action for a waiting one.
 */
export function evidenceComplete(
  events: readonly { seq: number; type: string; data: Readonly<Record<string, unknown>> }[],
  view: Pick<RunView, 'status' | 'pendingAction'>,
): boolean {
  if (events.length === 0 || events.some((e, i) => e.seq !== i + 1)) return false;
  if (isTerminal(view.status)) {
    const sealed = events.at(-1)!.type === 'run.sealed';
    return ['run.completed', 'run.failed', 'run.cancelled'].includes(events.at(sealed ? -2 : -1)?.type ?? '');
  }
  const actionId = view.pendingAction?.actionId;
  return (
    actionId === undefined ||
    events.some(
      (e) =>
        e.type === 'human.requested' &&
        (e.data.action as { actionId?: string } | undefined)?.actionId === actionId,
    )
  );
}
