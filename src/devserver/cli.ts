/**
 * `npm run dev:server`: start the pinned local Temporal dev server from temporal-dev.yml and keep it
 * running until Ctrl-C. Reuses a server that is already up on the configured port.
 * `--config <file>` reads another temporal-dev.yml.
 */
import { loadDevServerConfig } from './config.js';
import { resolveTemporal } from './temporal-target.js';

async function main(): Promise<void> {
  const i = process.argv.indexOf('--config');
  const configPath = i >= 0 ? process.argv[i + 1] : undefined;
  const target = await resolveTemporal({ config: loadDevServerConfig(configPath) });
  console.log(
    `Temporal ${target.mode === 'started' ? 'dev server started' : `server (${target.mode})`} at ${target.connectionOptions.address}, namespace ${target.namespace}`,
  );
  if (target.uiUrl) console.log(`Web UI: ${target.uiUrl}`);
  if (target.mode !== 'started') return;
  console.log('Press Ctrl-C to stop.');
  const shutdown = (): void => {
    void target.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  setInterval(() => undefined, 1 << 30);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
