import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Author and committer of the commits the harness makes. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** What {@link childProcessEnv} needs: nothing of it comes from the worker's environment except PATH. */
export interface ChildEnvOptions {
  /** HOME of the child: a directory the harness controls (never the user's home, never a worktree). */
  readonly home: string;
  /** Author and committer written into the environment (`GIT_AUTHOR_*`, `GIT_COMMITTER_*`). */
  readonly identity: GitIdentity;
  /** Add `CI=true` (the pipeline's test command). */
  readonly ci?: boolean;
}

/**
 * Every variable a child process of the coding tools may receive, and nothing else. The value of
 * `PATH` is the worker's (git and the test command must be found); every other value is set by the
 * harness. No credential can reach git, a repository hook or the pipeline: the worker's
 * `*_API_KEY`, `TEMPORAL_*`, `HARNESS_*`, `SSH_AUTH_SOCK`, `GIT_DIR`, proxies and the like are not
 * passed on.
 */
export const CHILD_ENV_NAMES = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TZ',
  'GIT_TERMINAL_PROMPT',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_CONFIG_GLOBAL',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'CI',
] as const;

/** Fallback PATH when the worker has none. */
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The complete environment of a child process of the coding tools (git, repository hooks, the
 * pipeline's test command): an explicit allowlist ({@link CHILD_ENV_NAMES}), never a copy of
 * `process.env`.
 *
 * - `PATH`: the worker's, so `git` and `sh` are found;
 * - `HOME`: `options.home`; `GIT_CONFIG_GLOBAL=/dev/null` and `GIT_CONFIG_NOSYSTEM=1`: no user or
 *   system git configuration applies (only the repository's own);
 * - `LANG=C`, `LC_ALL=C`, `TZ=UTC`: stable messages and dates;
 * - `GIT_TERMINAL_PROMPT=0`: git never waits for a password;
 * - the configured identity as author and committer; `CI=true` when `options.ci`.
 *
 * Pure; never throws.
 */
export function childProcessEnv(options: ChildEnvOptions): Record<string, string> {
  return {
    PATH: process.env.PATH || DEFAULT_PATH,
    HOME: options.home,
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: options.identity.name,
    GIT_AUTHOR_EMAIL: options.identity.email,
    GIT_COMMITTER_NAME: options.identity.name,
    GIT_COMMITTER_EMAIL: options.identity.email,
    ...(options.ci ? { CI: 'true' } : {}),
  };
}

let sharedHome: string | undefined;

/**
 * The HOME of the git commands of this process when the configuration names none: one empty
 * directory (mode 0700) under the system temp directory, created on first use and shared by every
 * coding tool set of the process. It is not removed at exit (it stays empty unless a hook writes to it).
 * @throws the `mkdtemp` error when the temp directory is not writable.
 */
export function defaultChildHome(): string {
  sharedHome ??= mkdtempSync(join(tmpdir(), 'harness-coding-home-'));
  return sharedHome;
}
