import type { NativeConnectionOptions } from '@temporalio/worker';
import { loadClientConnectConfig } from '@temporalio/envconfig';

/** A Temporal deployment named by `TEMPORAL_ADDRESS`, as every part of the harness connects to it. */
export interface ExternalTemporal {
  /** Usable for both `Connection.connect` (client) and `NativeConnection.connect` (worker). */
  readonly connectionOptions: NativeConnectionOptions & { address: string };
  readonly namespace: string;
}

/**
 * The deployment `TEMPORAL_ADDRESS` names, with Temporal's standard environment configuration
 * (@temporalio/envconfig: TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_PROFILE,
 * TEMPORAL_CONFIG_FILE): the one reading shared by the main job and `harness dev`
 * (resolveTemporal), worker processes and the CLI, so a TLS, API-key or profile setting means the
 * same to all of them. Namespace `default` when none is configured.
 * @returns undefined when `TEMPORAL_ADDRESS` is not set in `env`.
 * @throws envconfig's error for an unreadable or malformed config file or TLS file.
 */
export function externalTemporal(env: NodeJS.ProcessEnv = process.env): ExternalTemporal | undefined {
  const address = env.TEMPORAL_ADDRESS;
  if (!address) return undefined;
  const loaded = loadClientConnectConfig(
    env === process.env ? {} : { overrideEnvVars: { ...env } as Record<string, string> },
  );
  return {
    connectionOptions: { ...loaded.connectionOptions, address: loaded.connectionOptions.address ?? address },
    namespace: loaded.namespace ?? 'default',
  };
}
