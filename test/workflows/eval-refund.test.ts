import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../src/devserver/config.js';
import {
  failureSampleToCase,
  loadFailureSample,
  replayFailureSample,
  writeEvalCase,
} from '../../apps/refund/eval/failure-sample.js';
import { runEval } from '../../apps/refund/eval/run-eval.js';
import { envelopesOf, projectPublic } from '../../src/client/evidence/public-projection.js';
import { openEvidenceStore } from '../../src/activities/store/index.js';
import { assignArm } from '../../src/activities/bundles/rollout-arm.js';
import { resolveRolloutSecret } from '../../src/activities/bundles/rollout-secret.js';
import { connectTestTemporal, type TestTemporal } from '../support/temporal.js';

const CASES = join(projectRoot, 'eval', 'cases', 'refund');
const LARGE = 'RF-over-threshold-awaits-policy-confirmation';

describe('evaluation on the real server', () => {
  let t: TestTemporal;
  const bundle = () => ({ codePath: inject('workflowBundlePath') });
  const temporal = () => ({ client: t.client, connection: t.nativeConnection, namespace: t.namespace });
  beforeAll(async () => {
    t = await connectTestTemporal();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs seed-format cases as real runs and reports the metrics', async () => {
    const out = mkdtempSync(join(tmpdir(), 'eval-ok-'));
    const ids = [
      'H-RF-017',
      'RF-eligible-approved',
      'RF-ownership-mismatch',
      'RF-missing-order-id-provided',
      'RF-duplicate-request',
      LARGE,
      'RF-verify-connector-down',
    ];
    const r = await runEval({
      dir: CASES,
      out,
      temporal: temporal(),
      workflowBundle: bundle(),
      concurrency: 3,
      caseIds: ids,
    });
    expect(r.report.cases.map((c) => [c.caseId, c.passed, c.failures])).toEqual(
      [...ids]
        .sort(
          (a, b) =>
            r.report.cases.findIndex((c) => c.caseId === a) - r.report.cases.findIndex((c) => c.caseId === b),
        )
        .map((id) => [id, true, []]),
    );
    const m = r.report.metrics;
    expect(m.taskSuccess).toMatchObject({ numerator: 7, denominator: 7 });
    expect(m.policyViolationRate.numerator).toBe(0);
    // three cases refund (eligible-approved, duplicate-request, connector-down), each exactly once
    expect(m.duplicateSideEffectRate).toMatchObject({ numerator: 0, denominator: 3 });
    // Every seed metric has a row; the evidence of every run names its versions, and the failed
    // run's stored failure sample replays to the same failure against this build.
    const seed = Object.fromEntries(r.report.seedMetrics.map((x) => [x.id, x.result]));
    expect(r.report.seedMetrics).toHaveLength(37);
    expect(seed.version_attribution_coverage).toEqual({ value: 1, numerator: 7, denominator: 7 });
    expect(seed.failure_reproduction_rate).toEqual({ value: 1, numerator: 1, denominator: 1 });
    expect(seed.state_transition_integrity).toEqual({ value: 1, numerator: 7, denominator: 7 });
    expect(seed.audit_evidence_coverage).toMatchObject({ value: 1 });
    expect((seed.queue_wait_time as { samples: number }).samples).toBeGreaterThan(20);
    // Every case's model call sent its stored package: the context metrics have real denominators.
    expect(seed.instruction_data_separation_pass_rate).toMatchObject({ value: 1 });
    expect((seed.context_utilization as { denominator: number }).denominator).toBeGreaterThanOrEqual(7);
    expect(seed.stale_context_rate).toMatchObject({ value: 0 });
    expect(seed.context_precision).toMatchObject({ value: null });
    expect(m.humanHandoffRecall.value).toBe(1);
    expect(m.runDurationMs.p50).toBeGreaterThan(0);

    const h017 = r.runs.find((x) => x.evalCase.case_id === 'H-RF-017')!;
    expect(h017.observation.status).toBe('awaiting_confirmation');
    expect(h017.observation.currentNode).toBe('request_confirmation');
    expect(h017.checks.foundFacts).toEqual(['order', 'logistics', 'policy:R001']);
    const dup = r.runs.find((x) => x.evalCase.case_id === 'RF-duplicate-request')!;
    expect(dup.observation.refunds).toHaveLength(1);
    // The repeated approval arrives either while the first is in the mailbox or after it was settled: rejected either way.
    const rejected = dup.observation.events
      .filter((e) => e.type === 'human.signal_rejected')
      .map((e) => e.data.code);
    expect(rejected).toHaveLength(1);
    expect(['signal.duplicate', 'signal.no_pending_action']).toContain(rejected[0]);

    expect(
      (JSON.parse(readFileSync(r.jsonPath, 'utf8')) as { metrics: { cases: number } }).metrics.cases,
    ).toBe(7);
    expect(readFileSync(r.markdownPath, 'utf8')).toContain(
      '| H-RF-017 | pass | awaiting_confirmation (awaiting_confirmation)',
    );
    expect(existsSync(join(out, 'failures'))).toBe(false);

    // The public projection of a real run: gap-free sequences, mask.phone from the read policy decisions.
    const store = await openEvidenceStore(
      `sqlite:${join(out, 'runs', 'RF-eligible-approved', 'evidence.db')}`,
    );
    try {
      const events = envelopesOf(
        await store.listEvents(
          r.runs.find((x) => x.evalCase.case_id === 'RF-eligible-approved')!.observation.workflowId,
          { limit: 5000 },
        ),
      );
      const p = projectPublic(events);
      expect(p.appliedObligations).toEqual(['mask.phone']);
      expect(p.events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      expect(p.events.at(-2)!.type).toBe('run.completed');
      expect(p.events.at(-1)?.type).toBe('run.sealed');
    } finally {
      await store.close();
    }
  });

  it('with a bundles folder, each run pins its rollout arm and the report gives every seed metric per arm', async () => {
    const out = mkdtempSync(join(tmpdir(), 'eval-arms-'));
    const bundles = mkdtempSync(join(tmpdir(), 'eval-bundles-'));
    writeFileSync(
      join(bundles, 'rollout.yaml'),
      'schemaVersion: 1\nid: eval-ramp\ncandidate:\n  percent: 50\n',
    );
    const ids = ['RF-eligible-rejected', 'RF-too-early-10h', 'RF-delivered', 'RF-ownership-mismatch'];
    const r = await runEval({
      dir: CASES,
      out,
      temporal: temporal(),
      workflowBundle: bundle(),
      concurrency: 2,
      caseIds: ids,
      bundles,
    });
    expect(r.report.cases.every((c) => c.passed)).toBe(true);
    const arms = r.report.seedMetricsByArm ?? [];
    // Each run pinned the arm its workflow id gives at 50 % under the workers' rollout secret (the eval's
    // workers set none, so it is the dev secret under .data/keys); the arms' cases add up to the cases.
    const { secret } = resolveRolloutSecret({ env: {} });
    const expected = new Map<string, number>();
    for (const c of r.report.cases) {
      const arm = assignArm('eval-ramp', 50, c.workflowId, secret).arm;
      expected.set(arm, (expected.get(arm) ?? 0) + 1);
    }
    expect(arms.map((a) => [a.arm, a.cases])).toEqual(
      [...expected.entries()].sort(([a], [b]) => a.localeCompare(b)),
    );
    for (const a of arms) {
      expect(a.rollout).toBe('eval-ramp');
      expect(a.metrics).toHaveLength(37);
      expect(a.metrics.find((m) => m.id === 'task_success_rate')?.result).toMatchObject({
        numerator: a.cases,
        denominator: a.cases,
      });
    }
    expect(readFileSync(r.markdownPath, 'utf8')).toContain('### Rollout eval-ramp, arm ');
  });

  it('a case fails when its policy changes, and its failure sample replays and becomes a case', async () => {
    const out = mkdtempSync(join(tmpdir(), 'eval-loose-'));
    const r = await runEval({
      dir: CASES,
      out,
      temporal: temporal(),
      workflowBundle: bundle(),
      caseIds: [LARGE],
      policyOverride: 'read_only@v1',
    });
    const run = r.runs[0]!;
    // read_only@v1 (a policy the graph may run under) denies the refund: the run ends without one,
    // where the case expects it waiting for the second confirmation.
    expect(run.checks.passed).toBe(false);
    expect(run.observation.status).toBe('succeeded');
    expect(run.checks.forbiddenVisited).toEqual([]);
    expect(run.observation.refunds).toHaveLength(0);
    expect(run.checks.failures.join(' ')).toContain('awaiting_confirmation');

    const sampleDir = run.failureSample!;
    const sample = loadFailureSample(sampleDir);
    expect(sample.business.refunds).toHaveLength(0);
    expect(sample.evidence.events.length).toBeGreaterThan(20);
    expect(sample.evidence.invocations.length).toBe(3);
    await replayFailureSample(sampleDir, bundle());

    const regression = failureSampleToCase(sampleDir);
    expect(regression).toMatchObject({
      case_id: `${LARGE}-regression`,
      policy: 'read_only@v1',
      decisions: ['approve'],
      forbidden_nodes: ['reconcile_refund_state'],
      expected_terminal_status: 'awaiting_confirmation',
      initial_state: {
        order_status: 'paid',
        logistics_status: 'not_shipped',
        amount_cents: 680_000,
        customer_id: 'C1001',
      },
    });
    expect(regression.initial_state.hours_since_payment).toBeGreaterThanOrEqual(95.9);

    // The new case reproduces the failure on its own.
    const casesDir = mkdtempSync(join(tmpdir(), 'eval-regression-cases-'));
    writeEvalCase(regression, casesDir);
    const again = await runEval({
      dir: casesDir,
      out: join(out, 'again'),
      temporal: temporal(),
      workflowBundle: bundle(),
    });
    expect(again.runs[0]!.checks.failures).toEqual(run.checks.failures);
  });
});
