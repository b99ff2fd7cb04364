import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '../contract/errors.js';
import { goInstall, harnessCacheDir } from './go-install.js';

const execFileAsync = promisify(execFile);

/** Where a Temporal CLI was found, and how. */
export interface LocatedCli {
  readonly path: string;
  readonly source: 'env' | 'cache' | 'path' | 'built';
  readonly versionLine: string;
}

/** No CLI could be found or built; the message says how to get one. */
export class CliNotFoundError extends HarnessError {
  constructor(message: string) {
    super('devserver.cli_not_found', message);
  }
}

/** `go install` of the pinned CLI failed; the message carries go's output. */
export class CliBuildError extends HarnessError {
  constructor(message: string, details: Record<string, unknown>) {
    super('devserver.cli_build_failed', message, details);
  }
}

/** The cache folder holding one build per CLI version: `$XDG_CACHE_HOME/agent-harness/temporal-cli/<v>/`. */
export function cliCacheDir(version: string): string {
  return harnessCacheDir('temporal-cli', version);
}

async function versionLine(path: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(path, ['--version'], { timeout: 15_000 });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

function matches(line: string | undefined, version: string): boolean {
  return line !== undefined && line.startsWith(`temporal version ${version} `);
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * Build the pinned CLI with `go install` into the version's cache folder ({@link goInstall}: a
 * temporary folder first, then renamed, so a concurrent or interrupted build never leaves a
 * half-written binary). The version is stamped into the binary so `temporal --version` reports it.
 * @throws CliBuildError with go's output when the build fails.
 */
export async function buildCli(version: string, log: (line: string) => void): Promise<string> {
  const [path] = await goInstall(
    {
      label: `the Temporal CLI v${version}`,
      dir: cliCacheDir(version),
      packages: [`github.com/temporalio/cli/cmd/temporal@v${version}`],
      binaries: { temporal: 'temporal' },
      ldflags: `-X=github.com/temporalio/cli/temporalcli.Version=${version}`,
      error: (message, details) => new CliBuildError(message, { version, ...details }),
    },
    log,
  );
  return path!;
}

/**
 * Find the pinned Temporal CLI, in order: `TEMPORAL_CLI_PATH`; the cached build for the version;
 * `temporal` on PATH when its version matches; a fresh `go install` when `go` is present.
 * @returns undefined when none is available and `go` is missing (the caller decides the fallback).
 * @throws CliBuildError when go is present but the build fails.
 */
export async function locateCli(
  version: string,
  log: (line: string) => void,
): Promise<LocatedCli | undefined> {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    const line = await versionLine(fromEnv);
    if (line === undefined)
      throw new CliNotFoundError(`TEMPORAL_CLI_PATH=${fromEnv} does not run (\`--version\` failed)`);
    if (!matches(line, version))
      log(`Note: TEMPORAL_CLI_PATH reports "${line}", temporal-dev.yml pins ${version}; using it anyway.`);
    return { path: fromEnv, source: 'env', versionLine: line };
  }
  const cached = join(cliCacheDir(version), 'temporal');
  if (existsSync(cached)) {
    const line = await versionLine(cached);
    if (line !== undefined && matches(line, version))
      return { path: cached, source: 'cache', versionLine: line };
  }
  const onPath = findOnPath('temporal');
  if (onPath) {
    const line = await versionLine(onPath);
    if (line !== undefined && matches(line, version))
      return { path: onPath, source: 'path', versionLine: line };
  }
  if (findOnPath('go')) {
    const path = await buildCli(version, log);
    const line = (await versionLine(path)) ?? `temporal version ${version}`;
    return { path, source: 'built', versionLine: line };
  }
  return undefined;
}
