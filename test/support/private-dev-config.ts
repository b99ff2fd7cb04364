import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfigPath } from '../../src/devserver/config.js';

/**
 * A private copy of temporal-dev.yml on `port` / `port + 1` (UI) with a throwaway db file (and, when
 * given, a codec endpoint for its UI), for tests that start, stop or restart their own server: the
 * shared test server stays untouched.
 */
export function privateDevConfig(
  port: number,
  prefix = 'harness-devserver-',
  server: { uiCodecEndpoint?: string } = {},
): { path: string; dbFile: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const dbFile = join(dir, `dev-${port}.db`);
  const text = readFileSync(defaultConfigPath, 'utf8')
    .replace(/^( +)port: \d+$/m, `$1port: ${port}`)
    .replace(/^( +)uiPort: \d+$/m, `$1uiPort: ${port + 1}`)
    .replace(/dbFile: .*/, `dbFile: ${dbFile}`)
    .replace(
      /^( +)startTimeoutSeconds: (.*)$/m,
      server.uiCodecEndpoint === undefined
        ? '$&'
        : `$&\n$1uiCodecEndpoint: ${JSON.stringify(server.uiCodecEndpoint)}`,
    );
  const path = join(dir, 'temporal-dev.yml');
  writeFileSync(path, text);
  return { path, dbFile, dir };
}
