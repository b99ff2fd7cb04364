import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '../contract/errors.js';
import { goInstall, harnessCacheDir } from './go-install.js';

const execFileAsync = promisify(execFile);

/**
 * The real Temporal server (`go.temporal.io/server`: `cmd/server` and the SQL schema tool
 * `cmd/tools/sql`) that the real-server test tier runs with PostgreSQL persistence and mTLS
 * (test/realserver, docs/deploy.md). Built once with `go install` from the Go module proxy and cached
 * by version outside the clone, like the CLI: `$XDG_CACHE_HOME/agent-harness/temporal-server/<v>/`
 * holds `temporal-server`, `temporal-sql-tool` and the PostgreSQL schema (the module's
 * `schema/postgresql/v12` as `postgresql-v12-schema/`, so the cache is self-contained).
 */

/** The server release the pinned CLI (temporal-dev.yml, 1.5.1) embeds, so both tiers run the same server. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** The cache's copy of the release's `schema/postgresql/v12`. */
const SCHEMA_DIR = 'postgresql-v12-schema';

/** A usable server build. */
export interface TemporalServerBuild {
  readonly version: string;
  readonly server: string;
  readonly sqlTool: string;
  /** `schema/postgresql/v12` of the release (`temporal/` and `visibility/`, each with `versioned/`). */
  readonly postgresSchemaDir: string;
  readonly source: 'cache' | 'built';
}

/** `go install` of the server failed; the message carries go's output. */
export class ServerBuildError extends HarnessError {
  constructor(message: string, details: Record<string, unknown>) {
    super('devserver.server_build_failed', message, details);
  }
}

/** `$XDG_CACHE_HOME/agent-harness/temporal-server/<v>/`. */
export function serverCacheDir(version: string = TEMPORAL_SERVER_VERSION): string {
  return harnessCacheDir('temporal-server', version);
}

function buildIn(dir: string, version: string, source: TemporalServerBuild['source']): TemporalServerBuild {
  return {
    version,
    server: join(dir, 'temporal-server'),
    sqlTool: join(dir, 'temporal-sql-tool'),
    postgresSchemaDir: join(dir, SCHEMA_DIR),
    source,
  };
}

async function reportsVersion(path: string, version: string): Promise<boolean> {
  try {
    const { stdout } = await execFileAsync(path, ['--version'], { timeout: 15_000 });
    return stdout.trim().endsWith(` version ${version}`);
  } catch {
    return false;
  }
}

/**
 * The cached build of `version` when it is complete (both binaries report the version, the schema
 * folder exists), else undefined. Never builds, never throws.
 */
export async function cachedServer(
  version: string = TEMPORAL_SERVER_VERSION,
): Promise<TemporalServerBuild | undefined> {
  const build = buildIn(serverCacheDir(version), version, 'cache');
  if (!existsSync(join(build.postgresSchemaDir, 'temporal', 'versioned'))) return undefined;
  if (!(await reportsVersion(build.server, version))) return undefined;
  if (!(await reportsVersion(build.sqlTool, version))) return undefined;
  return build;
}

async function moduleDir(version: string): Promise<string> {
  const { stdout } = await execFileAsync('go', ['env', 'GOMODCACHE']);
  return join(stdout.trim(), `go.temporal.io/server@v${version}`);
}

/**
 * Build `version` with `go install go.temporal.io/server/cmd/server@v<v>
 * go.temporal.io/server/cmd/tools/sql@v<v>` (progress every 30 s) and copy the PostgreSQL schema
 * from the downloaded module into the cache.
 * @throws ServerBuildError with go's output when the build fails; the spawn error when `go` is missing.
 */
export async function buildServer(
  version: string = TEMPORAL_SERVER_VERSION,
  log: (line: string) => void = () => {},
): Promise<TemporalServerBuild> {
  const dir = serverCacheDir(version);
  const mod = `go.temporal.io/server`;
  const schema = join(await moduleDir(version), 'schema', 'postgresql', 'v12');
  await goInstall(
    {
      label: `the Temporal server v${version} and its SQL tool`,
      dir,
      packages: [`${mod}/cmd/server@v${version}`, `${mod}/cmd/tools/sql@v${version}`],
      binaries: { server: 'temporal-server', sql: 'temporal-sql-tool' },
      // go install downloaded the module: its schema goes into the cache with the binaries
      afterBuild: (tmp) => {
        if (!existsSync(schema))
          throw new ServerBuildError(`the module of v${version} has no ${schema}`, { version, schema });
        cpSync(schema, join(tmp, SCHEMA_DIR), { recursive: true });
        // the module cache is read-only: a later rebuild must be able to replace the copy
        execFileSync('chmod', ['-R', 'u+w', join(tmp, SCHEMA_DIR)]);
        return { [SCHEMA_DIR]: SCHEMA_DIR };
      },
      error: (message, details) => new ServerBuildError(message, { version, ...details }),
    },
    log,
  );
  return buildIn(dir, version, 'built');
}

/**
 * The cached build of `version`, or a fresh one when `go` is on PATH; undefined when neither (the
 * caller says why it skips).
 * @throws the errors of {@link buildServer}.
 */
export async function locateServer(
  version: string = TEMPORAL_SERVER_VERSION,
  log: (line: string) => void = () => {},
): Promise<TemporalServerBuild | undefined> {
  const cached = await cachedServer(version);
  if (cached) return cached;
  if (!(await goAvailable())) return undefined;
  return buildServer(version, log);
}

/** True when `go version` runs. */
export async function goAvailable(): Promise<boolean> {
  try {
    await execFileAsync('go', ['version'], { timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}
