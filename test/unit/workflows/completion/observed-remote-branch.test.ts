import { describe, expect, it } from 'vitest';
import { observedRemoteBranch } from '../../../../src/workflows/completion/observed-remote-branch.js';
import type { Artifact } from '../../../../src/contract/artifact.js';
import type { InvocationRecord } from '../../../../src/workflows/completion/completion.js';
import { input, inv, modelArtifact, observed, verified } from './evidence-fixtures.js';

const SHA1 = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
const branch = (id: string, name: string, sha: string, remote = 'origin') =>
  observed(id, 'git.remote_branch', { data: { remote, branch: name, sha }, externalId: sha });
const pushed = branch('b-1', 'agent/fix-1', SHA1);
const push = inv(1, 'git.push', 'write', ['b-1']);
const lsRemote = inv(2, 'git.ls_remote', 'read', ['v-1']);
const check = (
  subject: { artifactId?: string; externalId?: string },
  status: 'passed' | 'failed' = 'passed',
  id = 'v-1',
) => verified(id, subject, status, 'git.remote_check');
const run = (artifacts: Artifact[], invocations: InvocationRecord[] = [push, lsRemote], params = {}) =>
  observedRemoteBranch.evaluate(input(artifacts, invocations, params));

describe('observed_remote_branch/v1', () => {
  it('passes for an observed branch with a later passed linked check', () => {
    expect(
      run([pushed, check({ externalId: SHA1 })], undefined, { branch: 'agent/fix-1', remote: 'origin' }),
    ).toEqual({
      evaluator: 'observed_remote_branch/v1',
      passed: true,
      reasonCodes: ['completion.remote_branch_verified'],
      evidenceArtifactIds: ['b-1', 'v-1'],
      summary: 'the remote branch is observed and verified',
    });
  });

  it('fails without an observed branch, and a model claim of one does not count', () => {
    const claim = modelArtifact('b-1', 'git.remote_branch', {
      remote: 'origin',
      branch: 'agent/fix-1',
      sha: SHA1,
    });
    expect(run([claim, check({ artifactId: 'b-1' })]).reasonCodes).toEqual(['completion.no_remote_branch']);
  });

  it('fails with branch_mismatch for another branch or remote', () => {
    expect(run([pushed, check({ artifactId: 'b-1' })], undefined, { branch: 'main' }).reasonCodes).toEqual([
      'completion.branch_mismatch',
    ]);
    expect(run([pushed, check({ artifactId: 'b-1' })], undefined, { remote: 'fork' }).reasonCodes).toEqual([
      'completion.branch_mismatch',
    ]);
  });

  it('fails with invalid_artifact_data for a malformed branch observation', () => {
    const bad = observed('b-1', 'git.remote_branch', { data: { branch: 'x' } });
    expect(run([bad, check({ artifactId: 'b-1' })])).toMatchObject({
      passed: false,
      reasonCodes: ['completion.invalid_artifact_data'],
      evidenceArtifactIds: ['b-1'],
    });
  });

  it('fails without a check, with an unlinked check and with a failed check', () => {
    expect(run([pushed], [push]).reasonCodes).toEqual(['completion.no_verified_artifact']);
    expect(run([pushed, check({ externalId: SHA2 })]).reasonCodes).toEqual([
      'completion.unlinked_verification',
    ]);
    expect(run([pushed, check({ artifactId: 'b-1' }, 'failed')]).reasonCodes).toEqual([
      'completion.verification_failed',
    ]);
  });

  it('a check from the push itself is not independent', () => {
    expect(
      run([pushed, check({ artifactId: 'b-1' })], [inv(1, 'git.push', 'write', ['b-1', 'v-1'])]).reasonCodes,
    ).toEqual(['completion.unlinked_verification']);
  });

  it('a later unverified push of the same branch is not covered by the earlier check', () => {
    const repush = branch('b-2', 'agent/fix-1', SHA2);
    const invocations = [push, lsRemote, inv(3, 'git.push', 'write', ['b-2'])];
    expect(run([pushed, check({ artifactId: 'b-1' }), repush], invocations).passed).toBe(false);
    const recheck = check({ artifactId: 'b-2' }, 'passed', 'v-2');
    expect(
      run(
        [pushed, check({ artifactId: 'b-1' }), repush, recheck],
        [...invocations, inv(4, 'git.ls_remote', 'read', ['v-2'])],
      ),
    ).toMatchObject({
      passed: true,
      evidenceArtifactIds: ['b-2', 'v-2'],
    });
  });

  it('a check bound to one push does not vouch for a later push of the same commit', () => {
    // Both pushes observed SHA1; a check naming the first push by artifact id and external id is
    // tied to that write, so it does not cover the second, even when it was recorded after it.
    const repush = branch('b-2', 'agent/fix-1', SHA1);
    const bound = check({ artifactId: 'b-1', externalId: SHA1 }, 'passed', 'v-3');
    const invocations = [
      push,
      lsRemote,
      inv(3, 'git.push', 'write', ['b-2']),
      inv(4, 'git.ls_remote', 'read', ['v-3']),
    ];
    expect(run([pushed, repush, bound], invocations).reasonCodes).toEqual([
      'completion.unlinked_verification',
    ]);
    // Matched by the external id alone, the same check would have vouched for the later push.
    const unbound = check({ externalId: SHA1 }, 'passed', 'v-3');
    expect(run([pushed, repush, unbound], invocations).passed).toBe(true);
  });
});
