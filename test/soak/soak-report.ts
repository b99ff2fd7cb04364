import type { FleetCounts } from './worker-fleet.js';
import type { HistoryFaults } from './history-faults.js';
import type { SoakRunRecord } from './soak-run.js';

/** A refund row of the business store, as the soak counts them. */
export interface SoakRefundRow {
  readonly id: string;
  readonly order_id: string;
  readonly idempotency_key: string;
  readonly status: string;
}

/** What the evidence store holds about one run's writes and recovery decisions. */
export interface RunEvidence {
  readonly workflowId: string;
  readonly recoveryDecisions: readonly { decision: string; reason: string }[];
  /** Every `refund.create` invocation of the run: its intents (attempts) and results. */
  readonly writes: readonly {
    seq: number;
    intents: number;
    results: readonly { attempt: number; status: string; source: string }[];
  }[];
}

export interface SoakInputs {
  readonly config: Readonly<Record<string, string | number>>;
  readonly runs: readonly SoakRunRecord[];
  readonly refunds: readonly SoakRefundRow[];
  readonly evidence: readonly RunEvidence[];
  readonly histories: readonly HistoryFaults[];
  readonly fleet: FleetCounts;
  readonly postgresOutages: number;
  /** Event writes the evidence store refused as a conflict, by run (from the worker logs). */
  readonly refusedEventWrites: Readonly<Record<string, number>>;
}

/** The invariants of the soak: every one must be 0. */
export interface SoakInvariants {
  /** Runs whose workflow was still open at the end (nobody settled them). */
  readonly unsettledRuns: number;
  /** Runs that ended without a result of their own (workflow failed, terminated, timed out). */
  readonly runsWithoutResult: number;
  /** Orders with more than one refund. */
  readonly ordersRefundedMoreThanOnce: number;
  /** Eligible orders whose refund was approved and that have no refund. */
  readonly approvedEligibleOrdersWithoutRefund: number;
  /** Ineligible orders that got a refund anyway. */
  readonly ineligibleOrdersRefunded: number;
  /** Refund rows whose idempotency key names no run of this soak. */
  readonly refundsOfNoRun: number;
  /**
   * Runs whose events the evidence store refused as a conflict at least once: such a run cannot
   * close while the refusal lasts (a wedged run), even if it closes later.
   */
  readonly runsWithRefusedEventWrites: number;
}

export interface SoakReport {
  readonly config: Readonly<Record<string, string | number>>;
  readonly invariants: SoakInvariants;
  readonly runs: {
    readonly started: number;
    readonly closed: number;
    /** `<status> / <outcome>` of the runs' own results. */
    readonly byStatusAndOutcome: Record<string, number>;
    /** Terminal reason codes of runs that did not succeed. */
    readonly notSucceededByCode: Record<string, number>;
  };
  readonly orders: {
    readonly eligible: number;
    readonly ineligible: number;
    readonly eligibleApproved: number;
    readonly eligibleApprovedRefunded: number;
    /** Eligible orders whose run ended before asking for approval. */
    readonly eligibleNeverAskedForApproval: number;
  };
  readonly refunds: {
    readonly rows: number;
    /** Orders by how many refunds they have (`0`, `1`, `2+`). */
    readonly ordersByRefundCount: Record<string, number>;
  };
  readonly decisions: {
    readonly approvals: number;
    /** Operator reconciliations (the run waited in `unknown_write_outcome`), by outcome. */
    readonly operatorReconciles: Record<string, number>;
  };
  readonly recovery: {
    /** `recovery.decided` events by decision. */
    readonly byDecision: Record<string, number>;
    /** `recovery.decided` events by `<decision> (<reason>)`. */
    readonly byDecisionAndReason: Record<string, number>;
  };
  readonly writes: {
    readonly invocations: number;
    /** refund.create invocations by the number of attempts (intents) they took. */
    readonly byAttempts: Record<string, number>;
    /** refund.create attempt results by `<status> by <source>`. */
    readonly attemptResults: Record<string, number>;
  };
  readonly faults: {
    readonly workerSlots: number;
    readonly workerKills: number;
    readonly workerStarts: number;
    readonly failedWorkerStarts: number;
    readonly postgresOutages: number;
    /** Lost activities: timeouts in the histories, by activity and timeout type. */
    readonly activityTimeouts: Record<string, number>;
    /** Activities Temporal retried, by activity and the cause of the last failed attempt. */
    readonly activitiesRetried: Record<string, number>;
    readonly activityFailures: Record<string, number>;
    readonly workflowTaskTimeouts: number;
    readonly workflowTaskFailures: number;
    /** Event writes the evidence store refused as a conflict (worker logs), in all. */
    readonly refusedEventWrites: number;
  };
}

function bump(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

function merge(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) bump(into, k, v);
}

function sorted(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Count everything the soak saw. Pure: no I/O. */
export function buildSoakReport(i: SoakInputs): SoakReport {
  const refundsByOrder = new Map<string, SoakRefundRow[]>();
  for (const r of i.refunds) refundsByOrder.set(r.order_id, [...(refundsByOrder.get(r.order_id) ?? []), r]);
  const runIds = new Set(i.runs.map((r) => r.workflowId));
  const refundCount = (orderId: string) =>
    (refundsByOrder.get(orderId) ?? []).filter((r) => r.status !== 'failed').length;

  const byStatusAndOutcome: Record<string, number> = {};
  const notSucceededByCode: Record<string, number> = {};
  const ordersByRefundCount: Record<string, number> = {};
  const operatorReconciles: Record<string, number> = {};
  let approvals = 0;
  for (const run of i.runs) {
    if (!run.closed) bump(byStatusAndOutcome, `(open: ${run.lastStatus ?? 'unknown'})`);
    else if (run.workflowError !== undefined) bump(byStatusAndOutcome, '(no result: workflow error)');
    else bump(byStatusAndOutcome, `${run.status} / ${run.outcome}`);
    if (run.closed && run.status !== undefined && run.status !== 'succeeded')
      bump(notSucceededByCode, run.terminalCode ?? '(none)');
    const n = refundCount(run.order.orderId);
    bump(ordersByRefundCount, n >= 2 ? '2+' : String(n));
    approvals += run.approvals;
    for (const r of run.operatorReconciles) bump(operatorReconciles, r.outcome);
  }

  const eligible = i.runs.filter((r) => r.order.eligible);
  const eligibleApproved = eligible.filter((r) => r.approvals > 0);

  const byDecision: Record<string, number> = {};
  const byDecisionAndReason: Record<string, number> = {};
  const byAttempts: Record<string, number> = {};
  const attemptResults: Record<string, number> = {};
  let invocations = 0;
  for (const e of i.evidence) {
    for (const d of e.recoveryDecisions) {
      bump(byDecision, d.decision);
      bump(byDecisionAndReason, `${d.decision} (${d.reason})`);
    }
    for (const w of e.writes) {
      invocations++;
      bump(byAttempts, String(w.intents));
      for (const r of w.results) bump(attemptResults, `${r.status} by ${r.source}`);
    }
  }

  const activityTimeouts: Record<string, number> = {};
  const activitiesRetried: Record<string, number> = {};
  const activityFailures: Record<string, number> = {};
  let workflowTaskTimeouts = 0;
  let workflowTaskFailures = 0;
  for (const h of i.histories) {
    merge(activityTimeouts, h.activityTimeouts);
    merge(activitiesRetried, h.activityRetries);
    merge(activityFailures, h.activityFailures);
    workflowTaskTimeouts += h.workflowTaskTimeouts;
    workflowTaskFailures += h.workflowTaskFailures;
  }

  return {
    config: i.config,
    invariants: {
      unsettledRuns: i.runs.filter((r) => !r.closed).length,
      runsWithoutResult: i.runs.filter((r) => r.closed && r.workflowError !== undefined).length,
      ordersRefundedMoreThanOnce: i.runs.filter((r) => refundCount(r.order.orderId) > 1).length,
      approvedEligibleOrdersWithoutRefund: eligibleApproved.filter((r) => refundCount(r.order.orderId) === 0)
        .length,
      ineligibleOrdersRefunded: i.runs.filter((r) => !r.order.eligible && refundCount(r.order.orderId) > 0)
        .length,
      refundsOfNoRun: i.refunds.filter((r) => !runIds.has(r.idempotency_key.replace(/\/\d+$/, ''))).length,
      runsWithRefusedEventWrites: Object.keys(i.refusedEventWrites).length,
    },
    runs: {
      started: i.runs.length,
      closed: i.runs.filter((r) => r.closed).length,
      byStatusAndOutcome: sorted(byStatusAndOutcome),
      notSucceededByCode: sorted(notSucceededByCode),
    },
    orders: {
      eligible: eligible.length,
      ineligible: i.runs.length - eligible.length,
      eligibleApproved: eligibleApproved.length,
      eligibleApprovedRefunded: eligibleApproved.filter((r) => refundCount(r.order.orderId) === 1).length,
      eligibleNeverAskedForApproval: eligible.length - eligibleApproved.length,
    },
    refunds: { rows: i.refunds.length, ordersByRefundCount: sorted(ordersByRefundCount) },
    decisions: { approvals, operatorReconciles: sorted(operatorReconciles) },
    recovery: { byDecision: sorted(byDecision), byDecisionAndReason: sorted(byDecisionAndReason) },
    writes: { invocations, byAttempts: sorted(byAttempts), attemptResults: sorted(attemptResults) },
    faults: {
      workerSlots: Number(i.config.workerSlots ?? 0),
      workerKills: i.fleet.kills,
      workerStarts: i.fleet.starts,
      failedWorkerStarts: i.fleet.failedStarts,
      postgresOutages: i.postgresOutages,
      activityTimeouts: sorted(activityTimeouts),
      activitiesRetried: sorted(activitiesRetried),
      activityFailures: sorted(activityFailures),
      workflowTaskTimeouts,
      workflowTaskFailures,
      refusedEventWrites: Object.values(i.refusedEventWrites).reduce((a, b) => a + b, 0),
    },
  };
}

function table(title: string, counts: Readonly<Record<string, number>>): string[] {
  const rows = Object.entries(counts);
  if (rows.length === 0) return [`| ${title} | count |`, '| --- | ---: |', '| (none) | 0 |', ''];
  return [`| ${title} | count |`, '| --- | ---: |', ...rows.map(([k, v]) => `| ${k} | ${v} |`), ''];
}

/** The report as markdown (counts only, no timings), as it goes into docs/durability.md. */
export function soakReportMarkdown(r: SoakReport): string {
  return [
    '| invariant (must be 0) | count |',
    '| --- | ---: |',
    ...Object.entries(r.invariants).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '| what | count |',
    '| --- | ---: |',
    `| runs started | ${r.runs.started} |`,
    `| runs ended | ${r.runs.closed} |`,
    `| eligible orders / ineligible orders | ${r.orders.eligible} / ${r.orders.ineligible} |`,
    `| eligible orders approved | ${r.orders.eligibleApproved} |`,
    `| eligible approved orders refunded exactly once | ${r.orders.eligibleApprovedRefunded} |`,
    `| eligible orders whose run never asked for approval | ${r.orders.eligibleNeverAskedForApproval} |`,
    `| refund rows in the business store | ${r.refunds.rows} |`,
    `| signed approvals sent | ${r.decisions.approvals} |`,
    `| refund.create invocations | ${r.writes.invocations} |`,
    `| worker processes (slots) | ${r.faults.workerSlots} |`,
    `| worker processes SIGKILLed | ${r.faults.workerKills} |`,
    `| worker processes started (first starts included) | ${r.faults.workerStarts} |`,
    `| worker starts that failed and were tried again | ${r.faults.failedWorkerStarts} |`,
    `| PostgreSQL outages (stopped, started again) | ${r.faults.postgresOutages} |`,
    `| workflow task timeouts | ${r.faults.workflowTaskTimeouts} |`,
    `| workflow task failures | ${r.faults.workflowTaskFailures} |`,
    `| event writes refused by the evidence store (store.conflict) | ${r.faults.refusedEventWrites} |`,
    '',
    ...table('runs by status / outcome', r.runs.byStatusAndOutcome),
    ...table('runs not succeeded, by terminal reason', r.runs.notSucceededByCode),
    ...table('orders by number of refunds', r.refunds.ordersByRefundCount),
    ...table('operator reconciliations (unknown_write_outcome), by outcome', r.decisions.operatorReconciles),
    ...table('recovery.decided by decision', r.recovery.byDecision),
    ...table('recovery.decided by decision (reason)', r.recovery.byDecisionAndReason),
    ...table('refund.create invocations by attempts', r.writes.byAttempts),
    ...table('refund.create attempt results', r.writes.attemptResults),
    ...table('lost activities (timeouts in history)', r.faults.activityTimeouts),
    ...table(
      'activities retried by Temporal, by cause of the last failed attempt',
      r.faults.activitiesRetried,
    ),
    ...table('activities failed for good', r.faults.activityFailures),
  ].join('\n');
}
