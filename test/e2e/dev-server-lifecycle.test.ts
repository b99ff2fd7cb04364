import { privateDevConfig } from '../support/private-dev-config.js';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, pidsMatching, spawnTs, waitForExit, waitForOutput } from '../support/processes.js';

/** A private copy of temporal-dev.yml on other ports and a throwaway db, so the shared server is untouched. */
function privateConfig(port: number): { path: string; dbFile: string } {
  return privateDevConfig(port);
}

describe('dev server lifecycle: no temporal process outlives the harness', () => {
  const blockers: Server[] = [];
  afterAll(() => blockers.forEach((s) => s.close()));

  it.each([
    ['SIGINT', 17233],
    ['SIGTERM', 17243],
    ['SIGKILL', 17253],
  ] as const)('after %s to the harness process, the server is gone', async (signal, port) => {
    const { path, dbFile } = privateConfig(port);
    const child = spawnTs('src/devserver/cli.ts', ['--config', path]);
    await waitForOutput(child, /Press Ctrl-C/, 90_000);
    expect(pidsMatching(dbFile).length).toBeGreaterThan(0);
    child.kill(signal);
    await waitForExit(child);
    expect(await eventually(() => pidsMatching(dbFile).length === 0, 20_000)).toBe(true);
  });

  it('without a CLI, Go or a network, fails with a message that says how to get the CLI', async () => {
    const { path, dbFile } = privateConfig(17273);
    const cache = mkdtempSync(join(tmpdir(), 'harness-nocache-'));
    const child = spawnTs('src/devserver/cli.ts', ['--config', path], {
      XDG_CACHE_HOME: cache,
      TEMPORAL_CLI_PATH: '',
      PATH: ['/usr/bin', '/bin', dirname(process.execPath)].join(':'),
    });
    const output = await waitForOutput(child, /set TEMPORAL_ADDRESS/, 60_000);
    expect(output).toContain('No Temporal CLI v');
    expect(output).toContain('go install github.com/temporalio/cli/cmd/temporal@v');
    expect(await waitForExit(child)).toBe(1);
    expect(pidsMatching(dbFile)).toEqual([]);
  });

  it('says plainly when the port is taken by something else', async () => {
    const port = 17263;
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', () => r()));
    blockers.push(blocker);
    const { path, dbFile } = privateConfig(port);
    const child = spawnTs('src/devserver/cli.ts', ['--config', path]);
    const output = await waitForOutput(child, /taken by another process/, 30_000);
    expect(output).toContain(`127.0.0.1:${port}`);
    expect(await waitForExit(child)).toBe(1);
    expect(pidsMatching(dbFile)).toEqual([]);
  });
});
