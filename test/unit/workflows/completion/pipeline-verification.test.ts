import { describe, expect, it } from 'vitest';
import { pipelineVerification } from '../../../../src/workflows/completion/pipeline-verification.js';
import type { Artifact } from '../../../../src/contract/artifact.js';
import type { InvocationRecord } from '../../../../src/workflows/completion/completion.js';
import { input, inv, modelArtifact, observed, verified } from './evidence-fixtures.js';

const change = observed('c-1', 'git.remote_branch', { externalId: 'sha-1' });
const pipeline = (
  id: string,
  subject: { artifactId?: string; externalId?: string },
  status: 'passed' | 'failed' = 'passed',
) => verified(id, subject, status, 'pipeline.run', { externalId: `ci-${id}` });
const run = (artifacts: Artifact[], invocations: InvocationRecord[], params = {}) =>
  pipelineVerification.evaluate(input(artifacts, invocations, params));

describe('pipeline_verification/v1', () => {
  const invocations = [inv(1, 'git.push', 'write', ['c-1']), inv(2, 'ci.wait', 'read', ['p-1'])];

  it('passes when the latest pipeline run passed', () => {
    expect(run([change, pipeline('p-1', { externalId: 'sha-1' })], invocations)).toEqual({
      evaluator: 'pipeline_verification/v1',
      passed: true,
      reasonCodes: ['completion.pipeline_passed'],
      evidenceArtifactIds: ['p-1'],
      summary: 'the latest pipeline run passed',
    });
  });

  it('fails when the latest run failed, even after an earlier pass', () => {
    const artifacts = [
      change,
      pipeline('p-1', { externalId: 'sha-1' }),
      pipeline('p-2', { externalId: 'sha-1' }, 'failed'),
    ];
    const v = run(artifacts, [...invocations, inv(3, 'ci.wait', 'read', ['p-2'])]);
    expect(v).toMatchObject({
      passed: false,
      reasonCodes: ['completion.verification_failed'],
      evidenceArtifactIds: ['p-2'],
    });
  });

  it('fails without a trusted pipeline run: a model claim or an observed run does not count', () => {
    const claim = modelArtifact('p-1', 'pipeline.run', { status: 'green' });
    expect(run([change, claim], invocations).reasonCodes).toEqual(['completion.no_pipeline_verification']);
    const observedRun = observed('p-1', 'pipeline.run');
    expect(run([change, observedRun], invocations).reasonCodes).toEqual([
      'completion.no_pipeline_verification',
    ]);
  });

  it('honours a custom pipeline type', () => {
    const gh = verified('p-1', { externalId: 'sha-1' }, 'passed', 'github.workflow_run');
    expect(run([change, gh], invocations).passed).toBe(false);
    expect(run([change, gh], invocations, { pipelineType: 'github.workflow_run' }).passed).toBe(true);
  });

  describe('with requireLinkedChange', () => {
    const params = { requireLinkedChange: true, changeType: 'git.remote_branch' };

    it('passes when the pipeline verifies the latest observed change', () => {
      expect(run([change, pipeline('p-1', { artifactId: 'c-1' })], invocations, params)).toMatchObject({
        passed: true,
        evidenceArtifactIds: ['c-1', 'p-1'],
      });
    });

    it('fails with unlinked_verification when the pipeline tested something else', () => {
      expect(run([change, pipeline('p-1', { externalId: 'sha-0' })], invocations, params)).toMatchObject({
        passed: false,
        reasonCodes: ['completion.unlinked_verification'],
        evidenceArtifactIds: ['c-1', 'p-1'],
      });
    });

    it('a pipeline for an earlier change does not cover a later change', () => {
      const later = observed('c-2', 'git.remote_branch', { externalId: 'sha-2' });
      const v = run(
        [change, pipeline('p-1', { artifactId: 'c-1' }), later],
        [...invocations, inv(3, 'git.push', 'write', ['c-2'])],
        params,
      );
      expect(v.reasonCodes).toEqual(['completion.unlinked_verification']);
    });

    it('fails with verification_failed for a failed linked run and no_observed_action without a change', () => {
      expect(
        run([change, pipeline('p-1', { artifactId: 'c-1' }, 'failed')], invocations, params).reasonCodes,
      ).toEqual(['completion.verification_failed']);
      expect(
        run([pipeline('p-1', { artifactId: 'c-1' })], [inv(2, 'ci.wait', 'read', ['p-1'])], params)
          .reasonCodes,
      ).toEqual(['completion.no_observed_action']);
      expect(
        run([change, pipeline('p-1', { artifactId: 'c-1' })], invocations, {
          ...params,
          changeTool: 'git.commit',
        }).reasonCodes,
      ).toEqual(['completion.no_observed_action']);
    });
  });
});
