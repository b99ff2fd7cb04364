/**
 * What the real-server tests need from the machine besides npm packages: Debian's Chromium (browser
 * tests of the Temporal Web UI) and the PostgreSQL server binaries (the PostgreSQL evidence store).
 *
 * On a fresh machine of the project's kind neither is installed. `npm test` obtains them itself: when
 * one is missing and this process may use apt-get (root, Debian), it installs the package and says so
 * (about a minute each, once per machine). Otherwise it stops with the command to run. Never a
 * downloaded browser (`npx playwright install` does not work here).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface SystemNeed {
  /** Debian package name. */
  readonly pkg: string;
  /** What it is for, in the progress line. */
  readonly purpose: string;
  /** True when present (or provided another way, e.g. an environment variable). */
  present(): boolean;
}

function postgresBinPresent(): boolean {
  if (process.env.HARNESS_TEST_PG_URL || process.env.HARNESS_PG_BIN) return true;
  if (!existsSync('/usr/lib/postgresql')) return false;
  return readdirSync('/usr/lib/postgresql').some((v) =>
    existsSync(join('/usr/lib/postgresql', v, 'bin', 'initdb')),
  );
}

const NEEDS: readonly SystemNeed[] = [
  {
    pkg: 'chromium',
    purpose: 'browser tests of the Temporal Web UI',
    present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'),
  },
  { pkg: 'postgresql', purpose: 'the PostgreSQL evidence store tests', present: postgresBinPresent },
];

function canApt(): boolean {
  return process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Install the missing Debian packages the tests need (with progress output on stderr).
 * @throws Error naming the packages and the command to run when they are missing and apt-get cannot
 *   be used here (not root, not Debian), or when apt-get fails.
 */
export function ensureSystemPackages(log: (line: string) => void): void {
  const missing = NEEDS.filter((n) => !n.present());
  if (missing.length === 0) return;
  const names = missing.map((n) => n.pkg);
  const command = `apt-get update && apt-get install -y ${names.join(' ')}`;
  if (!canApt()) {
    throw new Error(
      `the tests need ${missing.map((n) => `${n.pkg} (${n.purpose})`).join(' and ')}; install with: ${command}`,
    );
  }
  for (const n of missing)
    log(`${n.pkg} is missing (${n.purpose}): installing it from Debian, once per machine...`);
  const started = Date.now();
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...names], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    });
  } catch (err) {
    throw new Error(`installing ${names.join(' ')} failed (${(err as Error).message}); run: ${command}`);
  }
  const still = missing.filter((n) => !n.present());
  if (still.length > 0)
    throw new Error(`${still.map((n) => n.pkg).join(' ')} still missing after apt-get install`);
  log(`installed ${names.join(' ')} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
