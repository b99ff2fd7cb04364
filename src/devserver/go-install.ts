import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HarnessError } from '../contract/errors.js';

/**
 * `go install` into a per-version cache folder outside the clone, the way the pinned Temporal CLI and
 * the real-server test tier's Temporal server are built: `$XDG_CACHE_HOME` (or `~/.cache`) +
 * `agent-harness/<tool>/<version>/`. A build goes into a temporary folder first and is renamed into
 * place, so a concurrent or interrupted build never leaves a half-written binary.
 */

/** The cache folder of one build of `tool` at `version`: `$XDG_CACHE_HOME/agent-harness/<tool>/<version>/`. */
export function harnessCacheDir(tool: string, version: string): string {
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(base, 'agent-harness', tool, version);
}

/** One `go install` of packages of one module version into a cache folder. */
export interface GoInstallRequest {
  /** What is built, for the progress lines ("the Temporal CLI v1.5.1"). */
  readonly label: string;
  /** The cache folder the binaries end up in (created when missing). */
  readonly dir: string;
  /** `module/path/cmd/x@vX.Y.Z`, all of the same module version. */
  readonly packages: readonly string[];
  /** Binary name `go install` writes -> name it gets in `dir`. */
  readonly binaries: Readonly<Record<string, string>>;
  /** `-ldflags` value, when the version must be stamped into the binary. */
  readonly ldflags?: string;
  /**
   * Runs in the temporary build folder after a successful build, before anything is renamed into
   * place (e.g. copy files the binaries need); returns more `name in tmp -> name in dir` to move.
   */
  readonly afterBuild?: (tmp: string) => Readonly<Record<string, string>>;
  /** The error thrown when the build fails (a stable code per tool). */
  readonly error: (message: string, details: Record<string, unknown>) => HarnessError;
}

/**
 * Run `go install` for `request` with progress lines every 30 s, and move what it built into
 * `request.dir`. Returns the final paths of the binaries, in the order of `request.binaries`.
 * @throws `request.error(...)` with the last 4,000 characters of go's output when go exits non-zero
 *   or a binary is missing; the spawn error when `go` cannot be run; `afterBuild`'s error. Nothing is
 *   left in the cache folder on failure.
 */
export async function goInstall(request: GoInstallRequest, log: (line: string) => void): Promise<string[]> {
  mkdirSync(request.dir, { recursive: true });
  const tmp = mkdtempSync(join(request.dir, '.build-'));
  log(
    `Building ${request.label} from the Go module proxy (first run only, a few minutes; cached in ${request.dir})...`,
  );
  const started = Date.now();
  const args = ['install', ...(request.ldflags ? [`-ldflags=${request.ldflags}`] : []), ...request.packages];
  const output: string[] = [];
  try {
    const code = await new Promise<number>((resolvePromise, reject) => {
      const child = spawn('go', args, {
        env: { ...process.env, GOBIN: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const ticker = setInterval(
        () => log(`  ...still building (${Math.round((Date.now() - started) / 1000)} s)`),
        30_000,
      );
      const collect = (b: Buffer) => output.push(b.toString());
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      child.on('error', (err) => {
        clearInterval(ticker);
        reject(err);
      });
      child.on('close', (c) => {
        clearInterval(ticker);
        resolvePromise(c ?? 1);
      });
    });
    const missing = Object.keys(request.binaries).filter((b) => !existsSync(join(tmp, b)));
    if (code !== 0 || missing.length > 0) {
      const text = output.join('').slice(-4000);
      throw request.error(`go install of ${request.label} failed (exit ${code}):\n${text}`, {
        packages: [...request.packages],
        output: text,
      });
    }
    const moves = { ...request.binaries, ...(request.afterBuild?.(tmp) ?? {}) };
    for (const [from, to] of Object.entries(moves)) {
      const target = join(request.dir, to);
      rmSync(target, { recursive: true, force: true });
      renameSync(join(tmp, from), target);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  log(`Built ${request.label} in ${Math.round((Date.now() - started) / 1000)} s.`);
  return Object.values(request.binaries).map((name) => join(request.dir, name));
}
