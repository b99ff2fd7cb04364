import { describe, expect, it } from 'vitest';
import { historyFacts } from '../../../../src/client/metrics/history-facts.js';
import { buildMetricsReport, renderMetricsMarkdown } from '../../../../src/client/metrics/metrics-report.js';
import {
  computeEvidenceMetrics,
  type RunEvidence,
} from '../../../../src/client/metrics/run-evidence-metrics.js';
import {
  seedMetricRows,
  SEED_METRICS,
  evidenceMetricValues,
} from '../../../../src/client/metrics/seed-metrics.js';
import type { InvocationRecord, RunRecord, StoredEvent } from '../../../../src/activities/store/index.js';

const VERSIONS = {
  profile: 'p@v1',
  policy: 'pol@v1',
  toolRegistryDigest: 'sha256:t',
  modelRoute: 'scripted/x',
  configDigest: 'sha256:c',
};

type Ev = [type: string, data?: Record<string, unknown>];

function events(
  runId: string,
  list: readonly Ev[],
  versions: Record<string, unknown> = VERSIONS,
): StoredEvent[] {
  return list.map(([type, data = {}], i) => ({
    runId,
    seq: i + 1,
    eventId: `${runId}:${i + 1}`,
    type,
    occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    data,
    envelope: { type, data, versions },
  }));
}

function record(runId: string, status: string, lastSeq: number, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    versions: VERSIONS,
    status,
    waitingReason: null,
    node: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:10.000Z',
    endedAt: ['succeeded', 'failed', 'cancelled', 'budget_exhausted'].includes(status)
      ? '2026-01-01T00:00:10.000Z'
      : null,
    terminalReason: null,
    output: null,
    budget: { steps: 4, modelCalls: 1, toolCalls: 2, inputTokens: 30, outputTokens: 10, costUsd: 0.5 },
    lastSeq,
    ...extra,
  };
}

const moved = (from: string, to: string): Ev => ['state.transitioned', { fromStatus: from, toStatus: to }];
const START: Ev[] = [
  ['run.created'],
  moved('created', 'queued'),
  moved('queued', 'running'),
  ['run.started'],
];

function intent(
  runId: string,
  seq: number,
  attempt: number,
  at: string,
): InvocationRecord['intents'][number] {
  return {
    runId,
    seq,
    attempt,
    tool: 'refund.create',
    version: 'v1',
    effect: 'write',
    argsDigest: 'd1',
    args: {},
    idempotencyKey: `k${seq}`,
    workerIdentity: 'w',
    recordedAt: at,
  };
}

function writeRun(
  runId: string,
  opts: { audit?: boolean; skipDecision?: boolean; approved?: boolean } = {},
): RunEvidence {
  const list: Ev[] = [
    ...START,
    ...(opts.skipDecision
      ? []
      : [
          [
            'policy.decided',
            {
              tool: 'refund.create',
              version: 'v1',
              argsDigest: 'd1',
              decision: 'require_confirmation',
              obligations: opts.audit ? ['log.audit.high_risk'] : [],
            },
          ] as Ev,
        ]),
    ...(opts.approved === false ? [] : [['human.decided', { decision: 'approved' }] as Ev]),
    ...(opts.audit ? [['audit.recorded', { argsDigest: 'd1' }] as Ev] : []),
    ['tool.authorized', { seq: 1, tool: 'refund.create', version: 'v1', effect: 'write', argsDigest: 'd1' }],
    ['tool.completed', { seq: 1, status: 'succeeded', activityAttempt: 1 }],
    ['guardrail.output_checked', { verdict: 'pass', reasonCodes: [] }],
    moved('running', 'succeeded'),
    ['run.completed'],
  ];
  const ev = events(runId, list);
  return {
    runId,
    record: record(runId, 'succeeded', ev.length),
    events: ev,
    invocations: [
      {
        runId,
        seq: 1,
        intents: [intent(runId, 1, 1, '2026-01-01T00:00:01.000Z')],
        results: [],
        result: {
          runId,
          seq: 1,
          attempt: 1,
          status: 'succeeded',
          source: 'executor',
          recordedAt: '2026-01-01T00:00:02.000Z',
        } as never,
      },
    ],
  };
}

function failedRun(runId: string, reproduced: boolean | undefined): RunEvidence {
  const ev = events(runId, [...START, moved('running', 'failed'), ['run.failed']]);
  return {
    runId,
    record: record(runId, 'failed', ev.length, { terminalReason: { code: 'completion.not_satisfied' } }),
    events: ev,
    invocations: [],
    failure: { reproduced },
  };
}

describe('evidence metrics', () => {
  it('counts complete audit chains of writes, and a write without a policy decision, approval or audit record is not covered', () => {
    const m = computeEvidenceMetrics([
      writeRun('ok'),
      writeRun('audited', { audit: true }),
      writeRun('no-decision', { skipDecision: true }),
      writeRun('not-approved', { approved: false }),
    ]);
    expect(m.auditEvidenceCoverage).toEqual({ value: 0.5, numerator: 2, denominator: 4 });
    const noAudit = writeRun('audit-missing', { audit: true });
    const without = { ...noAudit, events: noAudit.events.filter((e) => e.type !== 'audit.recorded') };
    expect(computeEvidenceMetrics([without]).auditEvidenceCoverage).toMatchObject({
      numerator: 0,
      denominator: 1,
    });
  });

  it('state transition integrity needs a legal chain from created to the recorded status', () => {
    const ok = writeRun('ok');
    const skipped = {
      ...ok,
      runId: 'skip',
      events: ok.events.filter((e) => !(e.type === 'state.transitioned' && e.data.toStatus === 'queued')),
    };
    const illegal = {
      ...ok,
      runId: 'illegal',
      events: ok.events.map((e) =>
        e.type === 'state.transitioned' && e.data.toStatus === 'succeeded'
          ? { ...e, data: { fromStatus: 'running', toStatus: 'created' } }
          : e,
      ),
    };
    const m = computeEvidenceMetrics([ok, skipped, illegal]);
    expect(m.stateTransitionIntegrity).toMatchObject({ numerator: 1, denominator: 3 });
  });

  it('trace completeness and version attribution fail on a gap or an event with other versions', () => {
    const ok = writeRun('ok');
    const gap = { ...ok, runId: 'gap', events: ok.events.filter((e) => e.seq !== 3) };
    const other = {
      ...ok,
      runId: 'other',
      events: ok.events.map((e, i) =>
        i === 5 ? { ...e, envelope: { ...e.envelope, versions: { ...VERSIONS, policy: 'pol@v2' } } } : e,
      ),
    };
    const m = computeEvidenceMetrics([ok, gap, other]);
    expect(m.traceCompleteness).toMatchObject({ numerator: 2, denominator: 3 });
    expect(m.versionAttributionCoverage).toMatchObject({ numerator: 2, denominator: 3 });
  });

  it('failure reproduction counts replayed samples, or says why none was replayed', () => {
    expect(
      computeEvidenceMetrics([failedRun('a', true), failedRun('b', false)]).failureReproductionRate,
    ).toEqual({
      value: 0.5,
      numerator: 1,
      denominator: 2,
    });
    expect(
      computeEvidenceMetrics([failedRun('a', undefined)], { replayUnavailable: 'only with --replay' })
        .failureReproductionRate,
    ).toEqual({ value: null, reason: 'only with --replay' });
    const m = computeEvidenceMetrics([writeRun('ok'), failedRun('a', true)]);
    expect(m.runSuccessRate).toMatchObject({ numerator: 1, denominator: 2 });
    expect(m.runFailureRate).toMatchObject({ numerator: 1, denominator: 2 });
    expect(m.stepsPerSuccessfulRun).toMatchObject({ value: 4, numerator: 4, denominator: 1 });
  });

  it('retry amplification counts intents per tool call and attempts per model answer; recovery needs an interruption', () => {
    const run = writeRun('ok');
    const retried: RunEvidence = {
      ...run,
      invocations: [
        {
          ...run.invocations[0]!,
          intents: [...run.invocations[0]!.intents, intent('ok', 1, 2, '2026-01-01T00:00:03.000Z')],
        },
      ],
      events: [
        ...run.events,
        ...events('ok', [['model.completed', { activityAttempt: 3, replayed: false }]]).map((e) => ({
          ...e,
          seq: 0,
        })),
      ],
    };
    const m = computeEvidenceMetrics([retried]);
    expect(m.retryAmplification).toMatchObject({ numerator: 5, denominator: 2 });
    expect(computeEvidenceMetrics([writeRun('calm')]).checkpointRecoverySuccessRate).toMatchObject({
      denominator: 0,
    });
  });

  it('response faithfulness: an answer whose check found an unsupported claim is not faithful', () => {
    const ok = writeRun('ok');
    const claimed = {
      ...ok,
      runId: 'claimed',
      events: ok.events.map((e) =>
        e.type === 'guardrail.output_checked'
          ? { ...e, data: { verdict: 'rewritten', reasonCodes: ['guardrail.output.unsupported_claim'] } }
          : e,
      ),
    };
    const masked = {
      ...ok,
      runId: 'masked',
      events: ok.events.map((e) =>
        e.type === 'guardrail.output_checked'
          ? { ...e, data: { verdict: 'rewritten', reasonCodes: ['guardrail.output.masked'] } }
          : e,
      ),
    };
    expect(computeEvidenceMetrics([ok, claimed, masked]).responseFaithfulness).toMatchObject({
      numerator: 2,
      denominator: 3,
    });
  });

  it('queue wait needs histories; every seed metric gets a row', () => {
    const m = computeEvidenceMetrics([writeRun('ok')], { historyUnavailable: 'skipped' });
    expect(m.queueWaitMs).toEqual({ value: null, reason: 'skipped' });
    const rows = seedMetricRows(evidenceMetricValues(m), () => 'why');
    expect(rows.map((r) => r.id)).toEqual(SEED_METRICS.map(([id]) => id));
    expect(rows.find((r) => r.id === 'task_success_rate')?.result).toEqual({ value: null, reason: 'why' });
  });
});

describe('history facts', () => {
  const t = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
  it('queue waits of workflow tasks and first attempts, interruptions and attempts', () => {
    const f = historyFacts({
      events: [
        { eventId: 1, eventTime: t(0), workflowExecutionStartedEventAttributes: {} },
        { eventId: 2, eventTime: t(1000), workflowTaskScheduledEventAttributes: {} },
        { eventId: 3, eventTime: t(1012), workflowTaskStartedEventAttributes: { scheduledEventId: 2 } },
        { eventId: 4, eventTime: t(1020), workflowTaskTimedOutEventAttributes: {} },
        { eventId: 5, eventTime: t(2000), activityTaskScheduledEventAttributes: {} },
        {
          eventId: 6,
          eventTime: t(2030),
          activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 1 },
        },
        { eventId: 7, eventTime: t(3000), activityTaskScheduledEventAttributes: {} },
        {
          eventId: 8,
          eventTime: t(9000),
          activityTaskStartedEventAttributes: { scheduledEventId: 7, attempt: 3 },
        },
        { eventId: 9, eventTime: t(9500), activityTaskTimedOutEventAttributes: {} },
      ],
    } as never);
    expect(f).toEqual({
      queueWaitsMs: [12, 30],
      workflowTaskInterruptions: 1,
      activitiesStarted: 2,
      activityAttempts: 4,
      activityTimeouts: 1,
    });
  });
});

describe('the metrics report per rollout arm', () => {
  const withArm = (r: RunEvidence, arm: string): RunEvidence => ({
    ...r,
    events: r.events.map((e) =>
      e.type === 'run.created' ? { ...e, data: { bundles: { rollout: 'prompt-ramp', arm } } } : e,
    ),
  });
  it('splits every metric by the arm each run pinned, and has no split without pins', () => {
    const report = buildMetricsReport({
      evidence: [withArm(writeRun('a'), 'stable'), withArm(failedRun('b', true), 'candidate'), writeRun('c')],
      window: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' },
      truncated: false,
      context: {},
    });
    expect(report.arms?.map((a) => [a.arm, a.runs])).toEqual([
      ['candidate', 1],
      ['stable', 1],
    ]);
    const success = (rows: readonly { id: string; result: unknown }[]) =>
      rows.find((m) => m.id === 'run_success_rate')?.result;
    expect(success(report.arms![0]!.metrics)).toMatchObject({ numerator: 0, denominator: 1 });
    expect(success(report.arms![1]!.metrics)).toMatchObject({ numerator: 1, denominator: 1 });
    expect(success(report.metrics)).toMatchObject({ numerator: 2, denominator: 3 });
    expect(renderMetricsMarkdown(report)).toContain('## Rollout prompt-ramp, arm candidate (1 runs)');
    const plain = buildMetricsReport({
      evidence: [writeRun('c')],
      window: report.window,
      truncated: false,
      context: {},
    });
    expect(plain.arms).toBeUndefined();
  });
});
