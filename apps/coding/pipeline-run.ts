import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Artifact, ToolContext, ToolExecution } from '../../src/index.js';
import { PIPELINE_ARTIFACT_TYPE } from '../../src/index.js';
import { artifactIdFor } from '../refund/tools/tool-support.js';
import { BRANCH_PARAMETERS, BranchArgsSchema, checkBranch, parseCodingArgs } from './coding-args.js';
import {
  CODING_ARTIFACT_SCHEMA_VERSION,
  remoteBranchExternalId,
  type CodingTool,
  type ResolvedCodingConfig,
} from './coding-config.js';
import { childProcessEnv } from './child-env.js';
import { CodingErrorCode, CodingExampleError } from './coding-errors.js';
import { gitOk, remoteBranchSha } from './git-runner.js';

/** Characters of combined stdout/stderr kept (the tail). */
const OUTPUT_TAIL_CHARS = 4000;
const HEARTBEAT_MS = 5000;

interface CommandOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly outputTail: string;
}

/**
 * Run the test command in `cwd` without a shell, in its own process group, with exactly `env` (see
 * `childProcessEnv`: no worker credentials), a timeout (the group is killed) and the tail of the
 * combined output kept.
 */
function runCommand(
  command: readonly [string, ...string[]],
  cwd: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
  ctx: ToolContext,
): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      cwd,
      env: { ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let tail = '';
    const keep = (chunk: Buffer): void => {
      tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const beat = setInterval(() => ctx.heartbeat({ pipeline: 'running' }), HEARTBEAT_MS);
    const onAbort = (): void => killGroup();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      clearTimeout(timer);
      clearInterval(beat);
      ctx.signal.removeEventListener('abort', onAbort);
    };
    child.once('error', (err) => {
      done();
      reject(
        new CodingExampleError(
          CodingErrorCode.gitFailed,
          `the test command could not start: ${err.message}`,
          { command: [...command] },
        ),
      );
    });
    child.once('close', (exitCode, signal) => {
      done();
      if (ctx.signal.aborted)
        reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('pipeline cancelled'));
      else resolve({ exitCode, signal, timedOut, outputTail: tail });
    });
  });
}

/**
 * `pipeline.run` v1 (read: it changes neither the repository nor the remote): the repository's
 * test pipeline for what the remote holds. Resolves `refs/heads/<branch>` on the configured remote,
 * clones the remote into a temp directory, checks that sha out and runs the configured test command
 * there (timeout, bounded output, only the environment of `childProcessEnv` with HOME = the temp
 * directory and CI=true), then removes the clone.
 *
 * Records a `verified` `pipeline.run` artifact whose subject is the external id
 * `<remote>/<branch>@<sha>` of the tested state (the id `git.push` gives it), `passed` when the
 * command exits 0 within the timeout, `failed` otherwise; data `{ command, branch, sha, exitCode,
 * signal, timedOut, durationMs, outputTail }`. Output `{ status, sha, exitCode, timedOut,
 * outputTail }`. Fails with `coding.invalid_arguments`, `coding.branch_not_found` (not on the
 * remote) or `coding.git_failed` (clone/checkout failed, command not startable).
 */
export function createPipelineRunTool(config: ResolvedCodingConfig): CodingTool {
  return {
    definition: {
      name: 'pipeline.run',
      version: 'v1',
      description: `Run the repository's test pipeline on the commit the branch points at on the remote ${config.remoteName}.`,
      effect: 'read',
      parameters: BRANCH_PARAMETERS,
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const branch = checkBranch(parseCodingArgs(BranchArgsSchema, call).branch);
        const opts = { signal: ctx.signal, env: config.gitEnv };
        const sha = await remoteBranchSha(config.repoDir, config.remoteDir, branch, opts);
        if (sha === undefined) {
          throw new CodingExampleError(
            CodingErrorCode.branchNotFound,
            `branch ${branch} is not on the remote ${config.remoteName}`,
            { branch },
          );
        }
        const work = await mkdtemp(join(tmpdir(), 'harness-pipeline-'));
        try {
          const src = join(work, 'src');
          await gitOk(work, ['clone', '--quiet', '--no-checkout', config.remoteDir, src], opts);
          await gitOk(src, ['checkout', '--quiet', '--detach', sha], opts);
          const started = Date.now();
          const env = childProcessEnv({ home: work, identity: config.identity, ci: true });
          const run = await runCommand(config.testCommand, src, env, config.pipelineTimeoutMs, ctx);
          const status = run.exitCode === 0 && !run.timedOut ? 'passed' : 'failed';
          const artifact: Artifact = {
            id: artifactIdFor(call, PIPELINE_ARTIFACT_TYPE),
            type: PIPELINE_ARTIFACT_TYPE,
            schemaVersion: CODING_ARTIFACT_SCHEMA_VERSION,
            provenance: 'verified',
            data: {
              command: config.testCommand.join(' '),
              branch,
              sha,
              exitCode: run.exitCode,
              signal: run.signal,
              timedOut: run.timedOut,
              durationMs: Date.now() - started,
              outputTail: run.outputTail,
            },
            verification: {
              subject: { externalId: remoteBranchExternalId(config.remoteName, branch, sha) },
              status,
            },
          };
          return {
            output: {
              status,
              sha,
              exitCode: run.exitCode,
              timedOut: run.timedOut,
              outputTail: run.outputTail,
            },
            artifacts: [artifact],
          };
        } finally {
          await rm(work, { recursive: true, force: true });
        }
      },
    },
  };
}
