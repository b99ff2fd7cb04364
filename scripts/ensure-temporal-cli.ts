/**
 * Make sure the pinned Temporal CLI of temporal-dev.yml is available (build it once with go install
 * into the user's cache when missing). Prints where it came from and how long it took.
 * Skipped when TEMPORAL_ADDRESS points at an existing deployment.
 */
import { locateCli } from '../src/devserver/cli-locator.js';
import { loadDevServerConfig } from '../src/devserver/config.js';

if (process.env.TEMPORAL_ADDRESS) {
  console.log(`TEMPORAL_ADDRESS=${process.env.TEMPORAL_ADDRESS}: using that server, no CLI needed.`);
} else {
  const started = Date.now();
  const config = loadDevServerConfig();
  const cli = await locateCli(config.cli.version, (line) => console.log(line));
  if (!cli) {
    console.error(
      `No Temporal CLI v${config.cli.version} and no Go toolchain: install Go, or set TEMPORAL_CLI_PATH.`,
    );
    process.exit(1);
  }
  console.log(
    `Temporal CLI (${cli.source}): ${cli.path} — ${cli.versionLine} [${((Date.now() - started) / 1000).toFixed(1)} s]`,
  );
}
