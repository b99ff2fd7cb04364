import { TRANSITIONS, type RunStatus } from '../../contract/statuses.js';
import type { InvocationRecord, StoredEvent } from '../../contract/store-records.js';
import type { RunRecord } from '../../contract/run-record.js';
import type { HistoryFacts } from './history-facts.js';
import { distribution, notComputable, ratio, type Distribution, type MetricValue } from './metric-value.js';

/**
 * Everything known about one run that the evidence metrics read: its record and events and tool
 * calls from the evidence store, and optionally what its Temporal history and a replay of its
 * failure sample say. Plain data: collecting it is `collect-run-evidence.ts`.
 */
export interface RunEvidence {
  readonly runId: string;
  /** The store's run record; undefined when the run left no record (no pinned versions in its events). */
  readonly record: RunRecord | undefined;
  /** All its stored events, in sequence order. */
  readonly events: readonly StoredEvent[];
  readonly invocations: readonly InvocationRecord[];
  /** What its Temporal histories (all generations) say; undefined when they were not read. */
  readonly history?: HistoryFacts;
  /**
   * Present when the run left a failure sample (ended failed, budget-exhausted or guardrail-blocked):
   * `reproduced` is whether a replay of it against the current build ended with the same failure,
   * undefined when it was not replayed.
   */
  readonly failure?: { readonly reproduced: boolean | undefined };
  /** The request packages of its model calls, in call order (`loadRunPackages`); undefined when not read. */
  readonly contextPackages?: readonly unknown[];
}

/** Why some inputs are missing, stated in the metrics that need them. */
export interface EvidenceMetricsContext {
  /** Why the Temporal histories were not read (queue wait needs them). */
  readonly historyUnavailable?: string;
  /** Why failure samples were not replayed (failure reproduction needs it). */
  readonly replayUnavailable?: string;
}

/**
 * The seed 004 metrics the evidence store (and the Temporal history) can prove for any run, without
 * knowing what the run should have done. Metrics that need a case's expectations (task success,
 * correct route, …) are the evaluation's (`apps/refund/eval/metrics.ts`).
 */
export interface EvidenceMetrics {
  readonly runs: number;
  readonly endedRuns: number;
  readonly responseFaithfulness: MetricValue;
  readonly stepsPerSuccessfulRun: MetricValue;
  readonly modelCallsPerSuccessfulRun: MetricValue;
  readonly toolCallsPerSuccessfulRun: MetricValue;
  readonly tokensPerSuccessfulRun: MetricValue;
  readonly costUsdPerSuccessfulRun: MetricValue;
  readonly noProgressLoopRate: MetricValue;
  readonly runSuccessRate: MetricValue;
  readonly runFailureRate: MetricValue;
  readonly runCancellationRate: MetricValue;
  readonly checkpointRecoverySuccessRate: MetricValue;
  readonly unknownOutcomeReconciliationRate: MetricValue;
  readonly retryAmplification: MetricValue;
  readonly runDurationMs: Distribution;
  readonly queueWaitMs: Distribution | MetricValue;
  readonly traceCompleteness: MetricValue;
  readonly versionAttributionCoverage: MetricValue;
  readonly failureReproductionRate: MetricValue;
  readonly stateTransitionIntegrity: MetricValue;
  readonly auditEvidenceCoverage: MetricValue;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'budget_exhausted']);
/** Output guardrail findings that say the answer claimed more than the evidence shows. */
const UNFAITHFUL_CODES = new Set([
  'guardrail.output.unsupported_claim',
  'guardrail.output.amount_over_approved',
  'guardrail.output.amount_unverified',
  'guardrail.output.date_unverified',
]);
const VERSION_FIELDS = ['profile', 'policy', 'toolRegistryDigest', 'modelRoute', 'configDigest'] as const;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const statusOf = (r: RunEvidence): string | undefined => r.record?.status;
const ended = (r: RunEvidence): boolean => TERMINAL.has(statusOf(r) ?? '');

/** Mean per succeeded run of one budget counter, as sum / runs. */
function perSuccess(
  succeeded: readonly RunEvidence[],
  pick: (b: Record<string, unknown>) => number,
): MetricValue {
  const sum = succeeded.reduce((a, r) => a + pick(r.record?.budget ?? {}), 0);
  return ratio(sum, succeeded.length);
}

/**
 * The response check of the run's final answer: the last `guardrail.output_checked`. Faithful when
 * none of its reason codes says the answer claimed an effect, amount or date the evidence does not
 * back (as the model wrote it: a rewritten claim counts against faithfulness even though the person
 * only saw the corrected text).
 */
function faithful(r: RunEvidence): boolean | undefined {
  const check = r.events.filter((e) => e.type === 'guardrail.output_checked').at(-1);
  if (!check) return undefined;
  const codes = Array.isArray(check.data.reasonCodes) ? check.data.reasonCodes : [];
  return !codes.some((c) => UNFAITHFUL_CODES.has(String(c)));
}

/** The run had to recover from an interruption: a lost worker or task, a retried activity, a lost write. */
function interrupted(r: RunEvidence): boolean {
  if (
    r.history &&
    (r.history.workflowTaskInterruptions > 0 || r.history.activityAttempts > r.history.activitiesStarted)
  )
    return true;
  if (r.invocations.some((i) => i.intents.length > 1)) return true;
  return r.events.some((e) => e.type === 'recovery.decided' || num(e.data.activityAttempt) > 1);
}

/**
 * Stored events numbered 1..n without a gap, ending with the terminal event when the record says it
 * ended (followed by its `run.sealed`, in runs since `agent-run-seal-v1`).
 */
function traceComplete(r: RunEvidence): boolean {
  if (!r.record || r.events.length === 0) return false;
  if (!r.events.every((e, i) => e.seq === i + 1)) return false;
  if (r.events.length !== r.record.lastSeq) return false;
  if (!ended(r)) return true;
  const sealed = r.events.at(-1)!.type === 'run.sealed';
  const last = r.events.at(sealed ? -2 : -1)?.type;
  return last === 'run.completed' || last === 'run.failed' || last === 'run.cancelled';
}

/** Every event names all five pinned versions, and the same ones the run record pinned. */
function versionAttributed(r: RunEvidence): boolean {
  const pinned = r.record?.versions;
  if (!pinned || r.events.length === 0) return false;
  return r.events.every((e) => {
    const v = e.envelope.versions as Record<string, unknown> | undefined;
    return (
      v !== undefined &&
      VERSION_FIELDS.every((f) => typeof v[f] === 'string' && v[f] !== '' && v[f] === pinned[f])
    );
  });
}

/**
 * Every status change is a `state.transitioned` whose `fromStatus` is the previous one's `toStatus`,
 * allowed by the transition table, starting at `created`, and the last one is the record's status.
 */
function transitionsIntact(r: RunEvidence): boolean {
  const moves = r.events.filter((e) => e.type === 'state.transitioned');
  if (!r.record || moves.length === 0) return false;
  let at: string = 'created';
  for (const m of moves) {
    const from = str(m.data.fromStatus);
    const to = str(m.data.toStatus);
    if (from !== at || to === undefined) return false;
    const allowed = TRANSITIONS[from as RunStatus] as readonly string[] | undefined;
    if (!allowed?.includes(to)) return false;
    at = to;
  }
  return at === r.record.status;
}

/**
 * The writes the run dispatched, each with whether its audit chain is complete: the policy's decision
 * on exactly these arguments came first and did not deny; a confirmation or human decision it asked
 * for was approved before the dispatch; a `log.audit.*` obligation was stored as `audit.recorded`;
 * the intent was recorded before the effect; and the outcome is settled in the store and in the events.
 */
function writeAudits(r: RunEvidence): boolean[] {
  const out: boolean[] = [];
  const bySeq = new Map(r.invocations.map((i) => [i.seq, i]));
  r.events.forEach((auth, index) => {
    if (auth.type !== 'tool.authorized' || auth.data.effect !== 'write') return;
    const seq = num(auth.data.seq);
    const before = r.events.slice(0, index);
    const decision = before
      .filter(
        (e) =>
          e.type === 'policy.decided' &&
          e.data.tool === auth.data.tool &&
          e.data.version === auth.data.version &&
          e.data.argsDigest === auth.data.argsDigest,
      )
      .at(-1);
    const verdict = str(decision?.data.decision);
    const decidedAt = decision ? before.indexOf(decision) : -1;
    const asked = verdict === 'require_confirmation' || verdict === 'require_human';
    const approved =
      !asked ||
      before.slice(decidedAt + 1).some((e) => e.type === 'human.decided' && e.data.decision === 'approved');
    const obligations = Array.isArray(decision?.data.obligations)
      ? decision.data.obligations.map(String)
      : [];
    const audited =
      !obligations.some((o) => o.startsWith('log.audit.')) ||
      before
        .slice(decidedAt + 1)
        .some((e) => e.type === 'audit.recorded' && e.data.argsDigest === auth.data.argsDigest);
    const record = bySeq.get(seq);
    const intentFirst =
      record !== undefined &&
      record.intents.length > 0 &&
      (record.results[0] === undefined || record.intents[0]!.recordedAt <= record.results[0].recordedAt);
    const settledInStore = record?.result !== undefined && record.result.status !== 'failed_retryable';
    const settledInEvents = r.events
      .slice(index + 1)
      .some((e) => (e.type === 'tool.completed' || e.type === 'tool.failed') && num(e.data.seq) === seq);
    out.push(
      decision !== undefined &&
        verdict !== 'deny' &&
        approved &&
        audited &&
        intentFirst &&
        settledInStore &&
        settledInEvents,
    );
  });
  return out;
}

/**
 * Executions of the run's tool and model calls against the calls themselves: each tool call's
 * recorded intents (one per attempt that reached the executor: Temporal retries and the harness's
 * own attempts of a lost write) and each answered model call's activity attempt.
 */
function callAttempts(r: RunEvidence): { tries: number; calls: number } {
  const models = r.events.filter((e) => e.type === 'model.completed' && e.data.replayed !== true);
  return {
    tries:
      r.invocations.reduce((n, i) => n + Math.max(1, i.intents.length), 0) +
      models.reduce((n, e) => n + Math.max(1, num(e.data.activityAttempt)), 0),
    calls: r.invocations.length + models.length,
  };
}

/** Every write whose outcome became unknown now has a settled result in the store (reconciler or operator). */
function reconciled(r: RunEvidence): boolean {
  const lost = new Set(
    r.events
      .filter((e) => e.type === 'tool.failed' && e.data.status === 'outcome_unknown')
      .map((e) => num(e.data.seq)),
  );
  return [...lost].every((seq) => {
    const status = r.invocations.find((i) => i.seq === seq)?.result?.status;
    return status === 'succeeded' || status === 'not_applied' || status === 'failed_terminal';
  });
}

/**
 * Compute the {@link EvidenceMetrics} of `runs`. Pure; never throws. Definitions: docs/metrics.md.
 */
export function computeEvidenceMetrics(
  runs: readonly RunEvidence[],
  context: EvidenceMetricsContext = {},
): EvidenceMetrics {
  const count = (xs: readonly RunEvidence[], f: (r: RunEvidence) => boolean): number => xs.filter(f).length;
  const endedRuns = runs.filter(ended);
  const succeeded = endedRuns.filter((r) => statusOf(r) === 'succeeded');
  const answered = runs.map(faithful).filter((f): f is boolean => f !== undefined);
  const recovering = endedRuns.filter(interrupted);
  const unknown = runs.filter((r) =>
    r.events.some((e) => e.type === 'tool.failed' && e.data.status === 'outcome_unknown'),
  );
  const withHistory = runs.filter((r) => r.history !== undefined);
  const failures = runs.filter((r) => r.failure !== undefined);
  const replayed = failures.filter((r) => r.failure?.reproduced !== undefined);
  const audits = runs.flatMap(writeAudits);
  const durations = endedRuns
    .map((r) => Date.parse(r.record!.endedAt ?? '') - Date.parse(r.record!.createdAt))
    .filter((d) => Number.isFinite(d) && d >= 0);

  const attempts = runs.reduce(
    (a, r) => {
      const calls = callAttempts(r);
      return { tries: a.tries + calls.tries, calls: a.calls + calls.calls };
    },
    { tries: 0, calls: 0 },
  );

  return {
    runs: runs.length,
    endedRuns: endedRuns.length,
    responseFaithfulness: ratio(answered.filter((f) => f).length, answered.length),
    stepsPerSuccessfulRun: perSuccess(succeeded, (b) => num(b.steps)),
    modelCallsPerSuccessfulRun: perSuccess(succeeded, (b) => num(b.modelCalls)),
    toolCallsPerSuccessfulRun: perSuccess(succeeded, (b) => num(b.toolCalls)),
    tokensPerSuccessfulRun: perSuccess(succeeded, (b) => num(b.inputTokens) + num(b.outputTokens)),
    costUsdPerSuccessfulRun: perSuccess(succeeded, (b) => num(b.costUsd)),
    noProgressLoopRate: ratio(
      count(endedRuns, (r) =>
        ['budget.no_progress', 'budget.duplicate_call'].includes(str(r.record?.terminalReason?.code) ?? ''),
      ),
      endedRuns.length,
    ),
    runSuccessRate: ratio(succeeded.length, endedRuns.length),
    runFailureRate: ratio(
      count(endedRuns, (r) => statusOf(r) === 'failed' || statusOf(r) === 'budget_exhausted'),
      endedRuns.length,
    ),
    runCancellationRate: ratio(
      count(endedRuns, (r) => statusOf(r) === 'cancelled'),
      endedRuns.length,
    ),
    checkpointRecoverySuccessRate: ratio(
      count(recovering, (r) => statusOf(r) !== 'failed' && traceComplete(r) && transitionsIntact(r)),
      recovering.length,
    ),
    unknownOutcomeReconciliationRate: ratio(count(unknown, reconciled), unknown.length),
    retryAmplification: ratio(attempts.tries, attempts.calls),
    runDurationMs: distribution(durations),
    queueWaitMs:
      withHistory.length === 0
        ? notComputable(context.historyUnavailable ?? 'no Temporal history was read')
        : distribution(withHistory.flatMap((r) => r.history!.queueWaitsMs)),
    traceCompleteness: ratio(count(runs, traceComplete), runs.length),
    versionAttributionCoverage: ratio(count(runs, versionAttributed), runs.length),
    failureReproductionRate:
      failures.length > 0 && replayed.length === 0
        ? notComputable(context.replayUnavailable ?? 'no failure sample was replayed')
        : ratio(
            count(replayed, (r) => r.failure?.reproduced === true),
            replayed.length,
          ),
    stateTransitionIntegrity: ratio(count(runs, transitionsIntact), runs.length),
    auditEvidenceCoverage: ratio(audits.filter((a) => a).length, audits.length),
  };
}
