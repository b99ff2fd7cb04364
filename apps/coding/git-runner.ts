import { execFile } from 'node:child_process';
import { CodingErrorCode, CodingExampleError } from './coding-errors.js';

/** Largest stdout a git command may produce before it is killed (status listings, logs). */
const MAX_GIT_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Default timeout of one git command. */
const GIT_TIMEOUT_MS = 30_000;
/** Error output kept in error details, in characters. */
const MAX_STDERR_CHARS = 2000;

/** The result of a git command that ran to completion (any exit code). */
export interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GitOptions {
  /**
   * The complete environment of git and of the hooks it runs: `childProcessEnv` (child-env.ts), never
   * `process.env` (see the coding configuration's `gitEnv`).
   */
  readonly env: Readonly<Record<string, string>>;
  /** Abort the command (it is killed). */
  readonly signal?: AbortSignal;
}

/**
 * Run `git <args>` in `cwd` without a shell (`execFile`), with a timeout, bounded output and
 * exactly `options.env` as its environment (no terminal prompts, the C locale, the configured
 * identity; nothing of the worker's environment but PATH). Resolves for any exit code; the caller
 * decides what a non-zero code means.
 *
 * @throws CodingExampleError `coding.git_failed` when git cannot be started, times out, is
 *   aborted, or writes more than 4 MiB to stdout.
 */
export function git(cwd: string, args: readonly string[], options: GitOptions): Promise<GitResult> {
  const env = { ...options.env };
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      {
        cwd,
        env,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: MAX_GIT_OUTPUT_BYTES,
        encoding: 'utf8',
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          reject(
            new CodingExampleError(
              CodingErrorCode.gitFailed,
              `git ${args[0] ?? ''} did not complete: ${err.message.slice(0, 300)}`,
              {
                args: args.slice(0, 4),
                stderr: stderr.slice(-MAX_STDERR_CHARS),
              },
            ),
          );
          return;
        }
        resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Like {@link git} but a non-zero exit code is an error.
 * @throws CodingExampleError `coding.git_failed` with the bounded stderr in details.
 */
export async function gitOk(cwd: string, args: readonly string[], options: GitOptions): Promise<string> {
  const result = await git(cwd, args, options);
  if (result.code !== 0) {
    throw new CodingExampleError(
      CodingErrorCode.gitFailed,
      `git ${args[0] ?? ''} exited with ${result.code}: ${result.stderr.trim().slice(0, 300)}`,
      {
        args: args.slice(0, 4),
        exitCode: result.code,
        stderr: result.stderr.slice(-MAX_STDERR_CHARS),
      },
    );
  }
  return result.stdout;
}

/**
 * The sha of `refs/heads/<branch>` in the repository (or bare remote) at `repo`, read with
 * `git ls-remote`; undefined when the branch does not exist there.
 * @throws CodingExampleError `coding.git_failed` when `repo` is not readable as a repository.
 */
export async function remoteBranchSha(
  cwd: string,
  repo: string,
  branch: string,
  options: GitOptions,
): Promise<string | undefined> {
  const ref = `refs/heads/${branch}`;
  const out = await gitOk(cwd, ['ls-remote', '--heads', '--', repo, ref], options);
  for (const line of out.split('\n')) {
    const [sha, name] = line.split('\t');
    if (name === ref && sha) return sha;
  }
  return undefined;
}
