import { z } from 'zod';
import type { Artifact, ReconcileOutcome, ToolCall, ToolExecution } from '../../src/index.js';
import { artifactIdFor } from '../refund/tools/tool-support.js';
import { BRANCH_JSON_SCHEMA, checkBranch, confineRepoPath, parseCodingArgs } from './coding-args.js';
import {
  CODING_ARTIFACT_SCHEMA_VERSION,
  type CodingTool,
  type ResolvedCodingConfig,
} from './coding-config.js';
import { CodingErrorCode, CodingExampleError } from './coding-errors.js';
import { git, gitOk, type GitOptions } from './git-runner.js';

/** The commit trailer that carries the harness idempotency key. */
export const IDEMPOTENCY_TRAILER = 'Harness-Idempotency-Key';
/** Artifact type of an observed commit. */
export const COMMIT_ARTIFACT_TYPE = 'git.commit';

const ArgsSchema = z
  .object({
    branch: z.string().min(1).max(100),
    message: z
      .string()
      .min(1)
      .max(2000)
      .refine((m) => !m.includes('\0') && !m.toLowerCase().includes(IDEMPOTENCY_TRAILER.toLowerCase()), {
        message: `must not contain NUL or a ${IDEMPOTENCY_TRAILER} trailer`,
      }),
    paths: z.array(z.string().min(1).max(500)).min(1).max(50),
  })
  .strict();
type CommitArgs = z.infer<typeof ArgsSchema>;

/**
 * The sha of the commit (on any ref) whose {@link IDEMPOTENCY_TRAILER} trailer is exactly `key`, or
 * undefined. Read-only.
 * @throws CodingExampleError `coding.git_failed`.
 */
export async function findCommitByKey(
  repoDir: string,
  key: string,
  options: GitOptions,
): Promise<string | undefined> {
  const out = await gitOk(
    repoDir,
    [
      'log',
      '--all',
      '-z',
      '-F',
      `--grep=${key}`,
      `--format=%H%x01%(trailers:key=${IDEMPOTENCY_TRAILER},valueonly,separator=%x01)`,
    ],
    options,
  );
  for (const record of out.split('\0')) {
    const [sha, ...values] = record.trim().split('\x01');
    if (sha && values.some((v) => v.trim() === key)) return sha;
  }
  return undefined;
}

function commitExecution(
  call: ToolCall,
  args: CommitArgs,
  paths: readonly string[],
  sha: string,
): ToolExecution {
  const artifact: Artifact = {
    id: artifactIdFor(call, COMMIT_ARTIFACT_TYPE),
    type: COMMIT_ARTIFACT_TYPE,
    schemaVersion: CODING_ARTIFACT_SCHEMA_VERSION,
    provenance: 'observed',
    externalId: sha,
    data: { sha, branch: args.branch, paths: [...paths] },
  };
  return {
    output: { sha, branch: args.branch, message: args.message.split('\n')[0] ?? '', paths: [...paths] },
    artifacts: [artifact],
    externalId: sha,
  };
}

/**
 * `git.commit` v1 (write): stage the given paths and commit only them on `branch` (created from
 * the current HEAD when missing, switched to otherwise; uncommitted changes travel along), with the
 * message and a `Harness-Idempotency-Key: <key>` trailer.
 *
 * execute: when a commit with the call's key exists on any ref it is returned and nothing is done
 * (a replay never commits twice). Paths must be relative, inside the repository and outside
 * `.git` (pathspec magic is off). Output `{ sha, branch, message, paths }`, externalId = sha, an
 * observed `git.commit` artifact. Fails with `coding.invalid_arguments`, `coding.nothing_to_commit`
 * (nothing changed in those paths; nothing committed) or `coding.git_failed` (e.g. the switch would
 * overwrite changes).
 *
 * reconcile: looks the commit up by the trailer: found -> `succeeded` with the same execution,
 * not found -> `not_applied`.
 */
export function createGitCommitTool(config: ResolvedCodingConfig): CodingTool {
  const repo = config.repoDir;
  return {
    definition: {
      name: 'git.commit',
      version: 'v1',
      description:
        'Commit the changes of the given repository paths on a branch (created from HEAD when it does not exist).',
      effect: 'write',
      // A repeat under the same key finds the commit carrying the key's trailer and commits nothing.
      idempotentByKey: true,
      parameters: {
        type: 'object',
        properties: {
          branch: BRANCH_JSON_SCHEMA,
          message: { type: 'string', description: 'Commit message.', minLength: 1, maxLength: 2000 },
          paths: {
            type: 'array',
            description: 'Repository-relative paths to commit, e.g. README.md.',
            items: { type: 'string', minLength: 1, maxLength: 500 },
            minItems: 1,
            maxItems: 50,
          },
        },
        required: ['branch', 'message', 'paths'],
        additionalProperties: false,
      },
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const args = parseCodingArgs(ArgsSchema, call);
        const branch = checkBranch(args.branch);
        const paths = args.paths.map((p) => confineRepoPath(repo, p));
        const opts = { signal: ctx.signal, env: config.gitEnv };
        const existing = await findCommitByKey(repo, call.idempotencyKey, opts);
        if (existing !== undefined) return commitExecution(call, args, paths, existing);
        const current = await git(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], opts);
        if (current.stdout.trim() !== branch) {
          const exists = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], opts);
          await gitOk(
            repo,
            exists.code === 0 ? ['switch', '--quiet', branch] : ['switch', '--quiet', '-c', branch],
            opts,
          );
        }
        await gitOk(repo, ['--literal-pathspecs', 'add', '--all', '--', ...paths], opts);
        const staged = await git(
          repo,
          ['--literal-pathspecs', 'diff', '--cached', '--quiet', '--', ...paths],
          opts,
        );
        if (staged.code === 0) {
          throw new CodingExampleError(
            CodingErrorCode.nothingToCommit,
            'the given paths have no changes to commit',
            { paths },
          );
        }
        await gitOk(
          repo,
          [
            '--literal-pathspecs',
            'commit',
            '--quiet',
            '-m',
            args.message,
            '-m',
            `${IDEMPOTENCY_TRAILER}: ${call.idempotencyKey}`,
            '--',
            ...paths,
          ],
          opts,
        );
        const sha = (await gitOk(repo, ['rev-parse', 'HEAD'], opts)).trim();
        return commitExecution(call, args, paths, sha);
      },
      async reconcile(ctx, call): Promise<ReconcileOutcome> {
        const sha = await findCommitByKey(repo, call.idempotencyKey, {
          signal: ctx.signal,
          env: config.gitEnv,
        });
        if (sha === undefined) return { outcome: 'not_applied' };
        const args = ArgsSchema.safeParse(call.args);
        if (!args.success) return { outcome: 'unknown' };
        return {
          outcome: 'succeeded',
          execution: commitExecution(
            call,
            args.data,
            args.data.paths.map((p) => confineRepoPath(repo, p)),
            sha,
          ),
        };
      },
    },
  };
}
