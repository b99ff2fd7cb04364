import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Artifact, ReconcileOutcome, ToolCall, ToolContext, ToolExecution } from '../../src/index.js';
import { PIPELINE_ARTIFACT_TYPE } from '../../src/index.js';
import { artifactIdFor } from '../refund/tools/tool-support.js';
import { BRANCH_PARAMETERS, BranchArgsSchema, checkBranch, parseCodingArgs } from './coding-args.js';
import { childProcessEnv } from './child-env.js';
import {
  CODING_ARTIFACT_SCHEMA_VERSION,
  type CodingTool,
  type ResolvedCodingConfig,
} from './coding-config.js';
import { CodingErrorCode, CodingExampleError } from './coding-errors.js';
import { gitOk, remoteBranchSha } from './git-runner.js';
import {
  markPipelineStarted,
  pipelineRecordsDir,
  readPipelineRecord,
  recordPipelineResult,
} from './pipeline-records.js';
import { checkSubject, listPushMarkers, pushOfState } from './push-markers.js';

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
 * `pipeline.run` v2 (write): the repository's test pipeline for the commit a `git.push` of this run
 * put on the remote. It is a write because it runs repository code on the worker's host (the test
 * command and whatever the tested commit contains): a policy that allows only reads refuses it, its
 * intent is recorded before it runs, it is never retried, and a lost run is settled by its
 * reconciler or a person. v1 declared it a read and is withdrawn (a worker no longer serves it).
 *
 * execute, in order:
 * 1. when this call's pipeline record (`pipeline-records.ts`, by idempotency key) is finished, that
 *    execution is returned and nothing runs again;
 * 2. resolves `refs/heads/<branch>` on the configured remote (`coding.branch_not_found` when absent);
 * 3. finds the push of this run that put that sha there (its push marker, `push-markers.ts`; the
 *    latest one before this call). None -> `coding.not_pushed_by_run` and nothing runs: the
 *    pipeline runs only code this run pushed, whatever else the remote holds;
 * 4. records that it started, clones the remote into a temp directory, checks the sha out and runs
 *    the configured test command there without a shell, with a timeout, bounded output and only the
 *    environment of `childProcessEnv` (HOME = the temp directory, CI=true), then removes the clone
 *    and records the finished execution under the key.
 *
 * Records a `verified` `pipeline.run` artifact, `passed` when the command exits 0 within the
 * timeout, `failed` otherwise. Its subject is bound to the push it tests: the external id
 * `<remote>/<branch>@<sha>` and the artifact id `<runId>/<pushSeq>/git.remote_branch` of that push,
 * so it vouches for that write only, never for another run's push or an earlier push of this run of
 * the same commit. Data `{ command, branch, sha, pushSeq, exitCode, signal, timedOut, durationMs,
 * outputTail }`. Output `{ status, sha, pushSeq, exitCode, timedOut, outputTail }`. Fails with
 * `coding.invalid_arguments`, `coding.branch_not_found`, `coding.not_pushed_by_run` (nothing run) or
 * `coding.git_failed` (clone/checkout failed, command not startable). A call whose record says it
 * started but never finished throws a plain error (the outcome is unknown; its reconciler decides).
 *
 * reconcile, by the call's own record only: finished -> `succeeded` with that execution; started
 * but not finished -> `unknown` (the code may have run; a person decides); none -> `not_applied`
 * (nothing ran). A record of another run or call for the same branch and commit never counts.
 */
export function createPipelineRunTool(config: ResolvedCodingConfig): CodingTool {
  async function run(ctx: ToolContext, call: ToolCall, records: string): Promise<ToolExecution> {
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
    const push = pushOfState(await listPushMarkers(config, call.runId, opts), branch, sha, call.seq);
    if (push === undefined) {
      throw new CodingExampleError(
        CodingErrorCode.notPushedByRun,
        `${config.remoteName}/${branch} is at ${sha}, which no git.push of this run put there; nothing was run`,
        { branch, sha },
      );
    }
    await markPipelineStarted(records, call.idempotencyKey, { branch, sha, pushSeq: push.seq });
    const work = await mkdtemp(join(tmpdir(), 'harness-pipeline-'));
    try {
      const src = join(work, 'src');
      await gitOk(work, ['clone', '--quiet', '--no-checkout', config.remoteDir, src], opts);
      await gitOk(src, ['checkout', '--quiet', '--detach', sha], opts);
      const started = Date.now();
      const env = childProcessEnv({ home: work, identity: config.identity, ci: true });
      const outcome = await runCommand(config.testCommand, src, env, config.pipelineTimeoutMs, ctx);
      const status = outcome.exitCode === 0 && !outcome.timedOut ? 'passed' : 'failed';
      const artifact: Artifact = {
        id: artifactIdFor(call, PIPELINE_ARTIFACT_TYPE),
        type: PIPELINE_ARTIFACT_TYPE,
        schemaVersion: CODING_ARTIFACT_SCHEMA_VERSION,
        provenance: 'verified',
        data: {
          command: config.testCommand.join(' '),
          branch,
          sha,
          pushSeq: push.seq,
          exitCode: outcome.exitCode,
          signal: outcome.signal,
          timedOut: outcome.timedOut,
          durationMs: Date.now() - started,
          outputTail: outcome.outputTail,
        },
        verification: { subject: checkSubject(config, call, branch, sha, push), status },
      };
      const execution: ToolExecution = {
        output: {
          status,
          sha,
          pushSeq: push.seq,
          exitCode: outcome.exitCode,
          timedOut: outcome.timedOut,
          outputTail: outcome.outputTail,
        },
        artifacts: [artifact],
      };
      await recordPipelineResult(records, call.idempotencyKey, execution);
      return execution;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  return {
    definition: {
      name: 'pipeline.run',
      version: 'v2',
      description:
        `Run the repository's test pipeline (this executes repository code) on the commit that a git.push ` +
        `of this run put on the branch of the remote ${config.remoteName}.`,
      effect: 'write',
      parameters: BRANCH_PARAMETERS,
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const records = await pipelineRecordsDir(config, { signal: ctx.signal, env: config.gitEnv });
        const record = await readPipelineRecord(records, call.idempotencyKey);
        if (record.state === 'finished') return record.execution;
        if (record.state === 'started') {
          // Not a HarnessError: the earlier start may have run the code; the reconciler decides.
          throw new Error(`pipeline ${call.idempotencyKey} started before and did not finish`);
        }
        return run(ctx, call, records);
      },
      async reconcile(ctx, call): Promise<ReconcileOutcome> {
        const records = await pipelineRecordsDir(config, { signal: ctx.signal, env: config.gitEnv });
        const record = await readPipelineRecord(records, call.idempotencyKey);
        if (record.state === 'finished') return { outcome: 'succeeded', execution: record.execution };
        return { outcome: record.state === 'started' ? 'unknown' : 'not_applied' };
      },
    },
  };
}
