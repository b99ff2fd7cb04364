import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { isMissingPackage, OPTIONAL_PACKAGES } from '../contract/optional-packages.js';
import { CliNotFoundError } from './cli-locator.js';
import type { DevServerConfig } from './config.js';
import type { StartedDevServer } from './dev-server.js';

/**
 * Last resort when neither a pinned CLI nor Go is available: the Temporal SDK's own download of the CLI
 * (it needs a network that reaches Temporal's release downloads). Same settings as temporal-dev.yml.
 * The download lives in `@temporalio/testing`, an optional peer dependency of agent-harness.
 * @throws CliNotFoundError (`devserver.cli_not_found`) with the steps to get a CLI when the download
 *   fails or `@temporalio/testing` is not installed (the message then names it).
 */
export async function startWithSdkDownload(
  config: DevServerConfig,
  log: (line: string) => void,
): Promise<StartedDevServer> {
  const s = config.server;
  log(
    `No Temporal CLI v${config.cli.version} and no Go toolchain: trying the Temporal SDK's own CLI download...`,
  );
  const extraArgs: string[] = [];
  if (s.uiCodecEndpoint !== undefined) extraArgs.push('--ui-codec-endpoint', s.uiCodecEndpoint);
  for (const [key, type] of Object.entries(config.searchAttributes))
    extraArgs.push('--search-attribute', `${key}=${type}`);
  for (const [key, value] of Object.entries(config.dynamicConfig))
    extraArgs.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  const testing = await loadTesting(config);
  try {
    const env = await testing.TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download', version: `v${config.cli.version}` },
        ip: s.ip,
        port: s.port,
        ui: true,
        uiPort: s.uiPort,
        namespace: s.namespace,
        dbFilename: s.dbFile,
        log: { format: 'pretty', level: s.logLevel },
        extraArgs,
      },
    });
    return {
      address: `${s.ip}:${s.port}`,
      namespace: s.namespace,
      uiUrl: `http://${s.ip}:${s.uiPort}`,
      pid: -1,
      stop: () => env.teardown(),
    };
  } catch (err) {
    throw new CliNotFoundError(
      `No Temporal CLI v${config.cli.version} found, Go is not installed, and the SDK download failed ` +
        `(${(err as Error).message.split('\n')[0]}). Install Go and rerun (the CLI is built once with ` +
        `go install github.com/temporalio/cli/cmd/temporal@v${config.cli.version}), set TEMPORAL_CLI_PATH to a ` +
        `temporal binary, or set TEMPORAL_ADDRESS to an existing Temporal server.`,
    );
  }
}

/** `@temporalio/testing`, or CliNotFoundError naming it and the other ways to a CLI. */
async function loadTesting(
  config: DevServerConfig,
): Promise<{ TestWorkflowEnvironment: typeof TestWorkflowEnvironment }> {
  try {
    return await import('@temporalio/testing');
  } catch (err) {
    if (!isMissingPackage(err, '@temporalio/testing')) throw err;
    const { range } = OPTIONAL_PACKAGES['@temporalio/testing'];
    throw new CliNotFoundError(
      `No Temporal CLI v${config.cli.version} found and Go is not installed. Install Go and rerun (the CLI ` +
        `is built once with go install github.com/temporalio/cli/cmd/temporal@v${config.cli.version}), set ` +
        `TEMPORAL_CLI_PATH to a temporal binary, set TEMPORAL_ADDRESS to an existing Temporal server, or ` +
        `install the optional package @temporalio/testing@'${range}' to let the Temporal SDK download a CLI.`,
    );
  }
}
