import type { Artifact, ReconcileOutcome, ToolCall, ToolExecution } from '../../src/index.js';
import { REMOTE_BRANCH_ARTIFACT_TYPE } from '../../src/index.js';
import { artifactIdFor } from '../refund/tools/tool-support.js';
import { BRANCH_PARAMETERS, BranchArgsSchema, checkBranch, parseCodingArgs } from './coding-args.js';
import {
  CODING_ARTIFACT_SCHEMA_VERSION,
  remoteBranchExternalId,
  type CodingTool,
  type ResolvedCodingConfig,
} from './coding-config.js';
import { CodingErrorCode, CodingExampleError } from './coding-errors.js';
import { git, remoteBranchSha, type GitOptions } from './git-runner.js';

function pushExecution(
  call: ToolCall,
  config: ResolvedCodingConfig,
  branch: string,
  sha: string,
  updated: boolean,
): ToolExecution {
  const externalId = remoteBranchExternalId(config.remoteName, branch, sha);
  const artifact: Artifact = {
    id: artifactIdFor(call, REMOTE_BRANCH_ARTIFACT_TYPE),
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
 * fast-forward push by URL; the repository's own remote configuration is not used).
 *
 * execute: when the remote branch already has the local sha nothing is pushed (`updated: false`):
 * pushing the same commit again, or replaying the call, is a no-op. After pushing, the remote ref
 * is read back with `git ls-remote`. Output `{ remote, branch, sha, updated }`; an observed
 * `git.remote_branch` artifact `{ remote, branch, sha }`; artifact and invocation externalId
 * `<remote>/<branch>@<sha>`. Fails with `coding.invalid_arguments`, `coding.branch_not_found` (no
 * such local branch), `coding.push_rejected` (e.g. not a fast-forward; the remote is unchanged) or
 * `coding.git_failed` (including a remote that does not show the pushed sha afterwards).
 *
 * reconcile: the remote shows the local sha -> `succeeded`; the remote branch is absent ->
 * `not_applied`; it shows another sha -> `unknown`.
 */
export function createGitPushTool(config: ResolvedCodingConfig): CodingTool {
  return {
    definition: {
      name: 'git.push',
      version: 'v1',
      description: `Push a local branch to the remote ${config.remoteName} (fast-forward only).`,
      effect: 'write',
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
        const before = await remoteBranchSha(config.repoDir, config.remoteDir, branch, opts);
        if (before === sha) return pushExecution(call, config, branch, sha, false);
        const ref = `refs/heads/${branch}`;
        const pushed = await git(
          config.repoDir,
          ['push', '--porcelain', '--quiet', config.remoteDir, `${ref}:${ref}`],
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
        return pushExecution(call, config, branch, sha, true);
      },
      async reconcile(ctx, call): Promise<ReconcileOutcome> {
        const args = BranchArgsSchema.safeParse(call.args);
        if (!args.success) return { outcome: 'unknown' };
        const branch = checkBranch(args.data.branch);
        const opts = { signal: ctx.signal, env: config.gitEnv };
        const remote = await remoteBranchSha(config.repoDir, config.remoteDir, branch, opts);
        if (remote === undefined) return { outcome: 'not_applied' };
        const local = await localSha(config, branch, opts);
        if (local !== remote) return { outcome: 'unknown' };
        return { outcome: 'succeeded', execution: pushExecution(call, config, branch, remote, false) };
      },
    },
  };
}
