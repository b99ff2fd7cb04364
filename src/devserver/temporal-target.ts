import type { NativeConnectionOptions } from '@temporalio/worker';
import { loadDevServerConfig, type DevServerConfig } from './config.js';
import { isTemporalHealthy, startDevServer } from './dev-server.js';
import { externalTemporal } from './external-target.js';
import { registerDevSearchAttributes } from './search-attributes.js';

/** Where the harness talks to Temporal, and whether it owns (and must stop) the server. */
export interface TemporalTarget {
  /** Usable for both `Connection.connect` (client) and `NativeConnection.connect` (worker). */
  readonly connectionOptions: NativeConnectionOptions & { address: string };
  readonly namespace: string;
  /** The Web UI, when known (dev server, or `TEMPORAL_UI_URL`). */
  readonly uiUrl: string | undefined;
  /** `external`: TEMPORAL_ADDRESS; `reused`: a dev server already running; `started`: ours. */
  readonly mode: 'external' | 'reused' | 'started';
  /** Stops the server when this process started it; otherwise does nothing. */
  stop(): Promise<void>;
}

export interface ResolveTemporalOptions {
  config?: DevServerConfig;
  log?: (line: string) => void;
}

/**
 * The one server manager used by `npm start`, `npm test` and .ci/run:
 * - `TEMPORAL_ADDRESS` set: use that deployment (namespace, TLS, API key from the standard Temporal
 *   environment configuration: TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_PROFILE,
 *   TEMPORAL_CONFIG_FILE) and start nothing.
 * - a healthy dev server already on the configured port: reuse it.
 * - otherwise: start the pinned dev server from temporal-dev.yml (building the CLI once if needed).
 * @throws the errors of {@link startDevServer}.
 */
export async function resolveTemporal(options: ResolveTemporalOptions = {}): Promise<TemporalTarget> {
  const log = options.log ?? ((line: string) => console.error(line));
  const config = options.config ?? loadDevServerConfig();
  const external = externalTemporal();
  if (external) {
    return {
      ...external,
      uiUrl: process.env.TEMPORAL_UI_URL,
      mode: 'external',
      stop: async () => {},
    };
  }
  const { ip, port, uiPort, namespace } = config.server;
  const address = `${ip}:${port}`;
  if (await isTemporalHealthy(address)) {
    await registerDevSearchAttributes(address, namespace, config.searchAttributes, log);
    if (config.server.uiCodecEndpoint !== undefined)
      log(
        `reusing the dev server at ${address}: its Web UI keeps the codec endpoint it was started with (server.uiCodecEndpoint applies when the harness starts the server)`,
      );
    return {
      connectionOptions: { address },
      namespace,
      uiUrl: `http://${ip}:${uiPort}`,
      mode: 'reused',
      stop: async () => {},
    };
  }
  const server = await startDevServer(config, log);
  return {
    connectionOptions: { address },
    namespace,
    uiUrl: server.uiUrl,
    mode: 'started',
    stop: () => server.stop(),
  };
}
