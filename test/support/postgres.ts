/**
 * A PostgreSQL server for tests.
 *
 * With `HARNESS_TEST_PG_URL` set, that database is used as it is (nothing is started or stopped).
 * Otherwise a throwaway cluster is created: `initdb` into a temporary folder (run as the `postgres`
 * OS user when this process is root), `pg_ctl start` on 127.0.0.1 with a free port and a private
 * socket folder, and a fresh database. `stop()` stops the server and removes the folder; an `exit`
 * handler and a detached watchdog (which outlives a killed test process by at most a second) make
 * sure no postgres process is left behind.
 *
 * Needs the server binaries: `apt-get update && apt-get install -y postgresql` (Debian 12: PG 15 in
 * /usr/lib/postgresql/15/bin). `HARNESS_PG_BIN` may name another bin folder.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface TestPostgres {
  /** URL of the test database. */
  readonly url: string;
  /** True when the server was started here (and is stopped by {@link TestPostgres.stop}). */
  readonly owned: boolean;
  /** The cluster's data folder (its `postmaster.pid` names the server process); undefined for an external server. */
  readonly dataDir?: string;
  /** URL of a new, empty schema in the test database: a clean evidence store location. */
  freshUrl(): string;
  /** Stop the server and remove its files (no-op for an external server). Idempotent. */
  stop(): Promise<void>;
  /**
   * Stop the server but keep its data (a database outage); {@link TestPostgres.resume} starts it
   * again on the same port. @throws for an external server (HARNESS_TEST_PG_URL): it is not ours.
   */
  halt(): Promise<void>;
  resume(): Promise<void>;
}

/** Append `schema=<name>` to a PostgreSQL URL. */
export function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}

function freshSchemaUrl(base: string): string {
  return withSchema(base, `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`);
}

/** Find the PostgreSQL server binaries or explain how to install them. */
export function findPostgresBin(): string {
  const candidates: string[] = [];
  if (process.env.HARNESS_PG_BIN !== undefined) candidates.push(process.env.HARNESS_PG_BIN);
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join('/usr/lib/postgresql', v, 'bin')));
  }
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (found === undefined) {
    throw new Error(
      'PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin. ' +
        'Install them with `apt-get update && apt-get install -y postgresql`, ' +
        'or set HARNESS_TEST_PG_URL to an existing database (or HARNESS_PG_BIN to a bin folder).',
    );
  }
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface StartTestPostgresOptions {
  /** Folder the throwaway cluster is created in (default: the OS temp folder; the bench uses tmpfs). */
  readonly parentDir?: string;
  /** Always start a throwaway cluster, even when HARNESS_TEST_PG_URL is set (the bench measures its CPU). */
  readonly ignoreExternal?: boolean;
}

/** Start (or connect to) the test server. Call `stop()` in `afterAll`. */
export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const external = options.ignoreExternal ? undefined : process.env.HARNESS_TEST_PG_URL;
  if (external !== undefined && external !== '') {
    return {
      url: external,
      owned: false,
      freshUrl: () => freshSchemaUrl(external),
      stop: () => Promise.resolve(),
      halt: () => Promise.reject(new Error('cannot stop an external PostgreSQL (HARNESS_TEST_PG_URL)')),
      resume: () => Promise.reject(new Error('cannot start an external PostgreSQL (HARNESS_TEST_PG_URL)')),
    };
  }
  const bin = findPostgresBin();
  const asRoot = process.getuid?.() === 0;
  const asPostgres = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args];

  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'harness-pg-'));
  const data = join(dir, 'data');
  const sockets = join(dir, 'sock');
  mkdirSync(sockets);
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);

  const stopSync = (): void => {
    if (existsSync(join(data, 'postmaster.pid'))) {
      const [cmd, args] = asPostgres('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
      try {
        execFileSync(cmd, args, { stdio: 'ignore' });
      } catch {
        killPostmaster(data);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopSync);
  startWatchdog(dir, data, asPostgres('pg_ctl', ['stop', '-D', data, '-m', 'immediate']));

  try {
    const [initCmd, initArgs] = asPostgres('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]);
    await run(initCmd, initArgs);
    let port = 0;
    const startServer = async (): Promise<void> => {
      const opts = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200`;
      const [cmd, args] = asPostgres('pg_ctl', [
        'start',
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-t',
        '60',
        '-o',
        opts,
      ]);
      await run(cmd, args);
    };
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await startServer();
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
    const admin = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE harness_test');
    } finally {
      await admin.end();
    }
    const url = `postgresql://postgres@127.0.0.1:${port}/harness_test`;
    let stopped = false;
    return {
      url,
      owned: true,
      dataDir: data,
      freshUrl: () => freshSchemaUrl(url),
      halt: async () => {
        const [cmd, args] = asPostgres('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
        await run(cmd, args);
      },
      resume: startServer,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        const [cmd, args] = asPostgres('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
        try {
          await run(cmd, args);
        } finally {
          stopSync();
          process.removeListener('exit', stopSync);
        }
      },
    };
  } catch (err) {
    let log = '';
    try {
      log = readFileSync(join(dir, 'server.log'), 'utf8').slice(-2000);
    } catch {
      // no log yet
    }
    stopSync();
    process.removeListener('exit', stopSync);
    throw new Error(`could not start a throwaway PostgreSQL: ${(err as Error).message}\n${log}`, {
      cause: err,
    });
  }
}

/** Last resort when pg_ctl cannot stop the server: SIGQUIT (immediate shutdown) to the postmaster. */
function killPostmaster(data: string): void {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGQUIT');
  } catch {
    // already gone
  }
}

/**
 * A detached shell that waits while this process lives and the cluster folder exists; when this
 * process dies without cleaning up (SIGKILL), it stops the server and removes the folder.
 */
function startWatchdog(dir: string, data: string, stop: [string, string[]]): void {
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const stopCommand = [stop[0], ...stop[1]].map(quote).join(' ');
  const script =
    `while kill -0 ${process.pid} 2>/dev/null && [ -d ${quote(dir)} ]; do sleep 1; done; ` +
    `if [ -f ${quote(join(data, 'postmaster.pid'))} ]; then ${stopCommand} >/dev/null 2>&1; fi; rm -rf ${quote(dir)}`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
}
