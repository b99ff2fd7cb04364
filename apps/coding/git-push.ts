import type { Artifact, ReconcileOutcome, ToolCall, ToolExecution } from '../../src/index.js';
import { REMOTE_BRANCH_ARTIFACT_TYPE } from '../../src/index.js';
import { BRANCH_PARAMETERS, BranchArgsSchema, checkBranch, parseCodingArgs } from './coding-args.js';
import {
  CODING_ARTIFACT_SCHEMA_VERSION,
  remoteBranchExternalId,
  type CodingTool,
  type ResolvedCodingConfig,
} from './coding-config.js';
import { CodingErrorCode, CodingExampleError } from './coding-errors.js';
import { git, remoteBranchSha, type GitOptions } from './git-runner.js';
import { listPushMarkers, markerOf, pushArtifactId, pushMarkerRef } from './push-markers.js';

function pushExecution(
  call: ToolCall,
  config: ResolvedCodingConfig,
  branch: string,
  sha: string,
  updated: boolean,
): ToolExecution {
  const externalId = remoteBranchExternalId(config.remoteName, branch, sha);
  const artifact: Artifact = {
    id: pushArtifactId(call, call.seq),
    type: REMOTE_BRANCH_ARTIFACT_TYPE,
    schemaVersion: CODING_ARTIFACT_SCHEMA_VERSION,
    provenance: 'observed',
    externalId,
    data: { remote: config.remoteName, branch, sha },
  };
  return { output: { remote: config.remoteName, branch, sha, updated }, artifacts: [artifact], externalId };
}

async function localSha(
  config: ResolvedCodingConfig,
  branch: string,
  options: GitOptions,
): Promise<string | undefined> {
  const r = await git(config.repoDir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], options);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/**
 * `git.push` v1 (write): push the local `branch` to the same branch of the configured remote (a
 * fast-forward push by URL; the repository's own remote configuration is not used), together with
 * the call's push marker (`push-markers.ts`: `refs/harness/push/<sha256(runId)>/<seq>/heads/<branch>`
 * -> the pushed sha) in one atomic push: the branch and the marker change together or not at all.
 *
 * execute: when this call's marker is already on the remote, nothing is pushed and the marked sha
 * is returned (`updated: false`): a repeat under the same key never pushes twice. When the remote
 * branch already has the local sha only the marker is pushed (`updated: false`). After pushing, the
 * remote ref is read back with `git ls-remote`. Output `{ remote, branch, sha, updated }`; an
 * observed `git.remote_branch` artifact `{ remote, branch, sha }` (id `<runId>/<seq>/git.remote_branch`);
 * artifact and invocation externalId `<remote>/<branch>@<sha>`. Fails with
 * `coding.invalid_arguments`, `coding.branch_not_found` (no such local branch),
 * `coding.push_rejected` (e.g. not a fast-forward; the remote is unchanged, marker included) or
 * `coding.git_failed` (including a remote that does not show the pushed sha afterwards).
 *
 * reconcile: by the call's own marker only: present -> `succeeded` with the marked sha; absent ->
 * `not_applied` (the atomic push did not happen). Another run's push of the same commit, or the
 * branch merely showing the local sha, never counts as this call's push.
 */
export function createGitPushTool(config: ResolvedCodingConfig): CodingTool {
  return {
    definition: {
      name: 'git.push',
      version: 'v1',
      description: `Push a local branch to the remote ${config.remoteName} (fast-forward only).`,
      effect: 'write',
      // A repeat under the same key finds the call's push marker and pushes nothing.
      idempotentByKey: true,
      parameters: BRANCH_PARAMETERS,
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const branch = checkBranch(parseCodingArgs(BranchArgsSchema, call).branch);
        const opts = { signal: ctx.signal, env: config.gitEnv };
        const sha = await localSha(config, branch, opts);
        if (sha === undefined) {
          throw new CodingExampleError(CodingErrorCode.branchNotFound, `no local branch ${branch}`, {
            branch,
          });
        }
        const mine = markerOf(await listPushMarkers(config, call.runId, opts), call.seq, branch);
        if (mine !== undefined) return pushExecution(call, config, branch, mine.sha, false);
        const before = await remoteBranchSha(config.repoDir, config.remoteDir, branch, opts);
        const ref = `refs/heads/${branch}`;
        const marker = `${sha}:${pushMarkerRef(call, branch)}`;
        const refspecs = before === sha ? [marker] : [`${ref}:${ref}`, marker];
        const pushed = await git(
          config.repoDir,
          ['push', '--porcelain', '--quiet', '--atomic', config.remoteDir, ...refspecs],
          opts,
        );
        if (pushed.code !== 0) {
          const rejected = /^!/m.test(pushed.stdout) || pushed.stderr.includes('rejected');
          throw new CodingExampleError(
            rejected ? CodingErrorCode.pushRejected : CodingErrorCode.gitFailed,
            `push of ${branch} failed: ${(pushed.stderr || pushed.stdout).trim().slice(0, 300)}`,
            { branch, stderr: pushed.stderr.slice(-2000) },
          );
        }
        const after = await remoteBranchSha(config.repoDir, config.remoteDir, branch, opts);
        if (after !== sha) {
          throw new CodingExampleError(
            CodingErrorCode.gitFailed,
            `after the push the remote shows ${after ?? 'no branch'} for ${branch}, not ${sha}`,
            {
              branch,
              sha,
              remoteSha: after ?? null,
            },
          );
        }
        return pushExecution(call, config, branch, sha, before !== sha);
      },
      async reconcile(ctx, call): Promise<ReconcileOutcome> {
        const args = BranchArgsSchema.safeParse(call.args);
        if (!args.success) return { outcome: 'unknown' };
        const branch = checkBranch(args.data.branch);
        const opts = { signal: ctx.signal, env: config.gitEnv };
        const mine = markerOf(await listPushMarkers(config, call.runId, opts), call.seq, branch);
        if (mine === undefined) return { outcome: 'not_applied' };
        return { outcome: 'succeeded', execution: pushExecution(call, config, branch, mine.sha, false) };
      },
    },
  };
}
