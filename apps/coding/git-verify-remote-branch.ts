import { z } from 'zod';
import type { Artifact, ToolExecution } from '../../src/index.js';
import { artifactIdFor } from '../refund/tools/tool-support.js';
import { BRANCH_JSON_SCHEMA, checkBranch, parseCodingArgs } from './coding-args.js';
import {
  CODING_ARTIFACT_SCHEMA_VERSION,
  type CodingTool,
  type ResolvedCodingConfig,
} from './coding-config.js';
import { remoteBranchSha } from './git-runner.js';
import { checkSubject, listPushMarkers, pushOfState } from './push-markers.js';

/** Artifact type of a remote branch check. */
export const REMOTE_BRANCH_CHECK_TYPE = 'git.remote_branch.check';

const SHA_PATTERN = '^[0-9a-f]{40}([0-9a-f]{24})?$';

const ArgsSchema = z
  .object({
    branch: z.string().min(1).max(100),
    expectedSha: z.string().regex(new RegExp(SHA_PATTERN)).optional(),
  })
  .strict();

/**
 * `git.verify_remote_branch` v1 (read): an independent check of the remote, run as its own
 * invocation after a push. Reads `refs/heads/<branch>` of the configured remote with
 * `git ls-remote` and records a `verified` `git.remote_branch.check` artifact whose subject is the
 * external id `<remote>/<branch>@<sha>` (the id `git.push` gives the state it observed):
 * - branch present (and equal to `expectedSha` when given) -> `passed`, subject = what it saw;
 * - present with another sha than `expectedSha` -> `failed`, subject = the expected state;
 * - absent -> `failed`, subject `<remote>/<branch>@absent` (links to no push).
 *
 * The subject is bound to a write: when a `git.push` of this run (an earlier seq) left its push
 * marker on the remote for that branch and sha, the subject also names that push's artifact id
 * (`<runId>/<pushSeq>/git.remote_branch`, the latest such push), and the check vouches for that push
 * only, never for another run's push or an earlier push of this run (see push-markers.ts). Data
 * `{ remote, branch, sha, expectedSha, pushSeq }` (pushSeq null when no push of this run matches).
 *
 * Output `{ remote, branch, sha, status }` (sha null when absent). Fails with
 * `coding.invalid_arguments` or `coding.git_failed` (remote unreadable).
 */
export function createGitVerifyRemoteBranchTool(config: ResolvedCodingConfig): CodingTool {
  return {
    definition: {
      name: 'git.verify_remote_branch',
      version: 'v1',
      description: `Check on the remote ${config.remoteName} that a branch exists (optionally at an expected commit sha).`,
      effect: 'read',
      parameters: {
        type: 'object',
        properties: {
          branch: BRANCH_JSON_SCHEMA,
          expectedSha: {
            type: 'string',
            description: 'Full commit sha the branch must point at.',
            pattern: SHA_PATTERN,
          },
        },
        required: ['branch'],
        additionalProperties: false,
      },
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const args = parseCodingArgs(ArgsSchema, call);
        const branch = checkBranch(args.branch);
        const opts = { signal: ctx.signal, env: config.gitEnv };
        const sha = await remoteBranchSha(config.repoDir, config.remoteDir, branch, opts);
        const matches = sha !== undefined && (args.expectedSha === undefined || args.expectedSha === sha);
        const subjectSha = matches ? sha : args.expectedSha;
        const push =
          subjectSha === undefined
            ? undefined
            : pushOfState(await listPushMarkers(config, call.runId, opts), branch, subjectSha, call.seq);
        const status = matches ? 'passed' : 'failed';
        const artifact: Artifact = {
          id: artifactIdFor(call, REMOTE_BRANCH_CHECK_TYPE),
          type: REMOTE_BRANCH_CHECK_TYPE,
          schemaVersion: CODING_ARTIFACT_SCHEMA_VERSION,
          provenance: 'verified',
          data: {
            remote: config.remoteName,
            branch,
            sha: sha ?? null,
            expectedSha: args.expectedSha ?? null,
            pushSeq: push?.seq ?? null,
          },
          verification: {
            subject: checkSubject(config, call, branch, subjectSha ?? 'absent', push),
            status,
          },
        };
        return {
          output: { remote: config.remoteName, branch, sha: sha ?? null, status },
          artifacts: [artifact],
        };
      },
    },
  };
}
