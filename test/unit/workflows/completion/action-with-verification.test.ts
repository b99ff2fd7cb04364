import { describe, expect, it } from 'vitest';
import { actionWithVerification } from '../../../../src/workflows/completion/action-with-verification.js';
import type { Artifact } from '../../../../src/contract/artifact.js';
import { input, inv, modelArtifact, observed, verified } from './evidence-fixtures.js';

const refund = observed('a-refund', 'refund', { externalId: 'R-1', data: { amount: 300 } });
const createRefund = inv(1, 'refund.create', 'write', ['a-refund'], { externalId: 'R-1' });
const check = (
  subject: { artifactId?: string; externalId?: string },
  status: 'passed' | 'failed' = 'passed',
  id = 'v-1',
) => verified(id, subject, status, 'refund.status_check');
const run = (
  artifacts: Artifact[],
  invocations = [createRefund, inv(2, 'refund.get', 'read', ['v-1'])],
  params = {},
) => actionWithVerification.evaluate(input(artifacts, invocations, params));

describe('action_with_verification/v1', () => {
  it('passes with an observed action and a later passed verification linked by artifact id', () => {
    expect(run([refund, check({ artifactId: 'a-refund' })])).toEqual({
      evaluator: 'action_with_verification/v1',
      passed: true,
      reasonCodes: ['completion.action_verified'],
      evidenceArtifactIds: ['a-refund', 'v-1'],
      summary: '1 observed action(s) verified',
    });
  });

  it('links by the external id of the artifact or of the invocation', () => {
    expect(run([refund, check({ externalId: 'R-1' })]).passed).toBe(true);
    const bare = observed('a-refund', 'refund');
    expect(run([bare, check({ externalId: 'R-1' })]).passed).toBe(true);
    expect(run([bare, check({ externalId: 'R-2' })]).reasonCodes).toEqual([
      'completion.unlinked_verification',
    ]);
  });

  it('requires every id the subject names to match', () => {
    expect(run([refund, check({ artifactId: 'a-refund', externalId: 'R-999' })]).reasonCodes).toEqual([
      'completion.unlinked_verification',
    ]);
  });

  describe('forgery attempts', () => {
    it('a model artifact and a model summary saying "refund done" never satisfy it', () => {
      const claim = modelArtifact('m-1', 'refund', { status: 'done', refundId: 'R-1' });
      const v = actionWithVerification.evaluate(input([claim], [], {}, 'Refund done, R-1 was paid.'));
      expect(v.passed).toBe(false);
      expect(v.reasonCodes).toEqual(['completion.no_observed_action']);
    });

    it('a model artifact cannot stand in for the verification', () => {
      const fakeCheck = { ...modelArtifact('v-1', 'refund.status_check', { verified: true }) };
      const v = run([refund, fakeCheck]);
      expect(v.reasonCodes).toEqual(['completion.no_verified_artifact']);
    });

    it('a verified or observed artifact no succeeded invocation recorded is ignored', () => {
      const injected = check({ artifactId: 'a-refund' }, 'passed', 'v-injected');
      const v = run([refund, injected]);
      expect(v.passed).toBe(false);
      expect(v.reasonCodes).toEqual([
        'completion.no_verified_artifact',
        'completion.unattributed_artifact_ignored',
      ]);
      const orphanAction = observed('a-orphan', 'refund');
      expect(run([orphanAction], []).reasonCodes).toEqual([
        'completion.no_observed_action',
        'completion.unattributed_artifact_ignored',
      ]);
    });

    it('a verified artifact that breaks the artifact schema is ignored', () => {
      const broken = { ...check({ artifactId: 'a-refund' }), verification: undefined } as Artifact;
      expect(run([refund, broken]).reasonCodes).toEqual([
        'completion.no_verified_artifact',
        'completion.unattributed_artifact_ignored',
      ]);
    });

    it('artifacts of a failed invocation do not count', () => {
      const v = run(
        [refund, check({ artifactId: 'a-refund' })],
        [createRefund, inv(2, 'refund.get', 'read', ['v-1'], { status: 'failed_terminal' })],
      );
      expect(v.reasonCodes).toContain('completion.no_verified_artifact');
    });

    it('a check recorded by the action itself, or before it, is not independent', () => {
      const same = run(
        [refund, check({ artifactId: 'a-refund' })],
        [inv(1, 'refund.create', 'write', ['a-refund', 'v-1'])],
      );
      expect(same.reasonCodes).toEqual(['completion.unlinked_verification']);
      const before = run(
        [refund, check({ externalId: 'R-1' })],
        [
          inv(1, 'refund.get', 'read', ['v-1']),
          inv(2, 'refund.create', 'write', ['a-refund'], { externalId: 'R-1' }),
        ],
      );
      expect(before.reasonCodes).toEqual(['completion.unlinked_verification']);
    });
  });

  it('fails with verification_failed when the linked check failed', () => {
    expect(run([refund, check({ artifactId: 'a-refund' }, 'failed')])).toMatchObject({
      passed: false,
      reasonCodes: ['completion.verification_failed'],
      evidenceArtifactIds: ['a-refund', 'v-1'],
    });
  });

  it('fails with unlinked_verification for a check about something else', () => {
    const v = run([refund, check({ artifactId: 'another' })]);
    expect(v).toMatchObject({
      passed: false,
      reasonCodes: ['completion.unlinked_verification'],
      evidenceArtifactIds: ['a-refund', 'v-1'],
    });
  });

  it('lets the latest linked check decide', () => {
    const invocations = [
      createRefund,
      inv(2, 'refund.get', 'read', ['v-1']),
      inv(3, 'refund.get', 'read', ['v-2']),
    ];
    const failedThenPassed = [
      refund,
      check({ artifactId: 'a-refund' }, 'failed', 'v-1'),
      check({ artifactId: 'a-refund' }, 'passed', 'v-2'),
    ];
    expect(run(failedThenPassed, invocations).passed).toBe(true);
    const passedThenFailed = [
      refund,
      check({ artifactId: 'a-refund' }, 'passed', 'v-1'),
      check({ artifactId: 'a-refund' }, 'failed', 'v-2'),
    ];
    expect(run(passedThenFailed, invocations).reasonCodes).toEqual(['completion.verification_failed']);
    const sameInvocation = [
      refund,
      check({ artifactId: 'a-refund' }, 'passed', 'v-1'),
      check({ artifactId: 'a-refund' }, 'failed', 'v-2'),
    ];
    expect(run(sameInvocation, [createRefund, inv(2, 'refund.get', 'read', ['v-1', 'v-2'])]).passed).toBe(
      false,
    );
  });

  it('counts only write actions, of actionTool and actionType when given', () => {
    const lookup = observed('a-order', 'order');
    expect(
      run(
        [lookup, check({ artifactId: 'a-order' })],
        [inv(1, 'order.get', 'read', ['a-order']), inv(2, 'x.check', 'read', ['v-1'])],
      ).reasonCodes,
    ).toEqual(['completion.no_observed_action']);
    const artifacts = [refund, check({ artifactId: 'a-refund' })];
    expect(run(artifacts, undefined, { actionTool: 'refund.create' }).passed).toBe(true);
    expect(run(artifacts, undefined, { actionTool: 'payment.send' }).reasonCodes).toEqual([
      'completion.no_observed_action',
    ]);
    expect(run(artifacts, undefined, { actionType: 'payment' }).reasonCodes).toEqual([
      'completion.no_observed_action',
    ]);
    expect(run(artifacts, undefined, { verificationType: 'other.check' }).reasonCodes).toEqual([
      'completion.no_verified_artifact',
    ]);
  });

  it('requires every action by default and one with require: any', () => {
    const second = observed('a-refund-2', 'refund', { externalId: 'R-2' });
    const artifacts = [refund, second, check({ artifactId: 'a-refund' })];
    const invocations = [
      createRefund,
      inv(2, 'refund.create', 'write', ['a-refund-2']),
      inv(3, 'refund.get', 'read', ['v-1']),
    ];
    expect(run(artifacts, invocations)).toMatchObject({
      passed: false,
      reasonCodes: ['completion.unlinked_verification'],
    });
    expect(run(artifacts, invocations, { require: 'any' })).toMatchObject({
      passed: true,
      evidenceArtifactIds: ['a-refund', 'v-1'],
    });
  });

  it('fails with params_invalid for params outside its contract', () => {
    expect(run([refund], undefined, { actionTool: 7 }).reasonCodes).toEqual(['completion.params_invalid']);
    expect(run([refund], undefined, { unknown: true }).reasonCodes).toEqual(['completion.params_invalid']);
  });
});

describe('action_with_verification/v1: a write a person settled (its activity was lost)', () => {
  const params = { actionTool: 'refund.create', verificationType: 'refund.status_check' };
  const settled = (extra: Partial<ReturnType<typeof inv>> = {}) =>
    inv(1, 'refund.create', 'write', [], {
      externalId: 'R-1',
      resolvedBy: 'operator:ops@example.com',
      ...extra,
    });
  const verifyRun = (seq = 2) => inv(seq, 'refund.get', 'read', ['v-1']);

  it('passes when a later independent check verified exactly the external id the person named', () => {
    expect(
      actionWithVerification.evaluate(
        input([check({ externalId: 'R-1' })], [settled(), verifyRun()], params),
      ),
    ).toEqual({
      evaluator: 'action_with_verification/v1',
      passed: true,
      reasonCodes: ['completion.action_verified', 'completion.operator_attested_action'],
      evidenceArtifactIds: ['v-1'],
      summary: '0 observed and 1 operator-settled action(s) verified',
    });
  });

  it("never passes on the person's word alone, on another id, a failed check, or an earlier check", () => {
    const evaluate = (artifacts: Artifact[], invocations: ReturnType<typeof inv>[]) =>
      actionWithVerification.evaluate(input(artifacts, invocations, params));
    expect(evaluate([], [settled()]).reasonCodes).toEqual(['completion.no_verified_artifact']);
    expect(evaluate([check({ externalId: 'R-2' })], [settled(), verifyRun()]).reasonCodes).toEqual([
      'completion.unlinked_verification',
    ]);
    expect(evaluate([check({ externalId: 'R-1' }, 'failed')], [settled(), verifyRun()]).reasonCodes).toEqual([
      'completion.verification_failed',
    ]);
    expect(evaluate([check({ externalId: 'R-1' })], [settled({ seq: 3 }), verifyRun(2)]).passed).toBe(false);
    // a subject naming an artifact cannot be an operator-settled write (it has none)
    expect(
      evaluate([check({ externalId: 'R-1', artifactId: 'a-refund' })], [settled(), verifyRun()]).passed,
    ).toBe(false);
  });

  it('counts only writes settled by an operator that name an external id, of the action tool', () => {
    const evaluate = (w: ReturnType<typeof inv>, p: Record<string, unknown> = params) =>
      actionWithVerification.evaluate(input([check({ externalId: 'R-1' })], [w, verifyRun()], p)).passed;
    expect(evaluate(settled())).toBe(true);
    expect(evaluate(settled({ resolvedBy: 'reconciler' }))).toBe(false);
    expect(evaluate(settled({ externalId: undefined }))).toBe(false);
    expect(evaluate(settled({ status: 'not_applied' }))).toBe(false);
    expect(evaluate(settled({ effect: 'read' }))).toBe(false);
    expect(evaluate(settled({ tool: 'refund.cancel' }))).toBe(false);
    // an artifact type cannot be matched without an artifact
    expect(evaluate(settled(), { actionType: 'refund' })).toBe(false);
  });

  it("with require 'all', an observed action and a settled one must both be verified", () => {
    const both = [
      inv(1, 'refund.create', 'write', ['a-refund'], { externalId: 'R-0' }),
      settled({ seq: 2 }),
      inv(3, 'refund.get', 'read', ['v-0', 'v-1']),
    ];
    const artifacts = [
      observed('a-refund', 'refund', { externalId: 'R-0' }),
      check({ externalId: 'R-0' }, 'passed', 'v-0'),
    ];
    const one = actionWithVerification.evaluate(input(artifacts, both, params));
    expect(one).toMatchObject({ passed: false, reasonCodes: ['completion.unlinked_verification'] });
    const two = actionWithVerification.evaluate(
      input([...artifacts, check({ externalId: 'R-1' }, 'passed', 'v-1')], both, params),
    );
    expect(two).toMatchObject({
      passed: true,
      reasonCodes: ['completion.action_verified', 'completion.operator_attested_action'],
    });
  });
});
