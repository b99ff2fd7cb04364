import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadDevServerConfig } from '../../src/devserver/config.js';
import { portIsFree, startDevServer } from '../../src/devserver/dev-server.js';

/** A private dev server for one repetition: its own ports and a throwaway SQLite db. */
export interface PrivateServer {
  readonly address: string;
  readonly namespace: string;
  readonly dir: string;
  stop(): Promise<void>;
}

const FIRST_PORT = 17600;

export async function freePortPair(ip: string): Promise<number> {
  for (let port = FIRST_PORT; port < FIRST_PORT + 400; port += 2) {
    if ((await portIsFree(ip, port)) && (await portIsFree(ip, port + 1))) return port;
  }
  throw new Error(`no free port pair in ${FIRST_PORT}..${FIRST_PORT + 400}`);
}

/**
 * Start `temporal server start-dev` from temporal-dev.yml with another port and a temp db (never the
 * shared 7233 server), under `parentDir` (tmpfs by default, see options). Stopping it removes the temp folder.
 * @throws the errors of startDevServer (CLI missing, not healthy in time).
 */
export async function startPrivateServer(
  log: (line: string) => void,
  parentDir: string,
): Promise<PrivateServer> {
  const base = loadDevServerConfig();
  const dir = mkdtempSync(join(parentDir, 'harness-bench-'));
  const port = await freePortPair(base.server.ip);
  const config = {
    ...base,
    server: {
      ...base.server,
      port,
      uiPort: port + 1,
      dbFile: join(dir, 'bench-server.db'),
      logLevel: 'error' as const,
    },
    // The server would suggest continue-as-new at 4,000 events; the 500-step runs are measured as one history.
    dynamicConfig: {
      ...base.dynamicConfig,
      'limit.historyCount.suggestContinueAsNew': 1_000_000,
      'limit.historySize.suggestContinueAsNew': 1_000_000_000,
    },
  };
  const started = await startDevServer(config, log);
  return {
    address: started.address,
    namespace: started.namespace,
    dir,
    stop: async () => {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
