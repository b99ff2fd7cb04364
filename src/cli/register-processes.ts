import type { Command } from 'commander';
import { importOptional } from '../activities/optional-package.js';
import type * as RunServiceCommands from './commands/run-service.js';
import type { ServeOptions, TokenOptions } from './commands/run-service.js';
import type { CommandKit } from './command-kit.js';

/**
 * Registers the long-running processes: `worker`, `dev` (dev server and worker), `serve` (the run
 * service) and its dev `token`.
 * Command modules load on use; an action's errors propagate to the caller (src/cli/main.ts maps
 * them to exit codes).
 */
export function registerProcessCommands(program: Command, { out, appOf, run }: CommandKit): void {
  program
    .command('worker')
    .description('run a worker process (TEMPORAL_ADDRESS or the dev server; it starts no server)')
    .option(
      '--search-attributes <mode>',
      "the namespace's search attributes at start: register the missing ones, check only, or skip (default: HARNESS_SEARCH_ATTRIBUTES, else register)",
    )
    .action((o: { searchAttributes?: string }, cmd: Command) =>
      run(async () => (await import('./commands/serve.js')).workerCommand(await appOf(cmd), o)),
    );

  program
    .command('dev')
    .description('start (or reuse) the dev server and run a worker in this process; Ctrl-C stops both')
    .option('--config <file>', 'dev server config (default: temporal-dev.yml)')
    .action((o: { config?: string }, cmd: Command) =>
      run(async () => (await import('./commands/serve.js')).devCommand(await appOf(cmd), o, out(cmd))),
    );

  program
    .command('serve')
    .description('run the HTTP run service (docs/api.md) until Ctrl-C')
    .option('--config <file>', 'service configuration (JSON)')
    .option('--dev', 'local setup: create a dev token issuer and delegate key under .data/service')
    .option('--host <host>', 'listen address (default: the config, else 127.0.0.1)')
    .option('--port <port>', 'listen port (default: the config, else 8787)')
    .option(
      '--search-attributes <mode>',
      "the namespace's search attributes at start: register (default) the missing ones, check only, or skip",
    )
    .action((o: ServeOptions, cmd: Command) =>
      run(async () => (await serviceCommands()).serveCommand(await appOf(cmd), o, out(cmd))),
    );

  program
    .command('token')
    .description('mint a dev bearer token for the run service (after `harness serve --dev`)')
    .requiredOption('--tenant <id>', 'tenant')
    .requiredOption('--user <id>', 'user (the token subject)')
    .option('--roles <list>', 'comma-separated roles, e.g. requester or refund_approver,approver')
    .option('--kind <kind>', 'operator, approver or customer', 'operator')
    .option('--ttl <seconds>', 'lifetime in seconds', '3600')
    .action((o: TokenOptions, cmd: Command) =>
      run(async () => (await serviceCommands()).tokenCommand(o, out(cmd))),
    );
}

/**
 * The run service's commands. They need the optional packages fastify and jose.
 * @throws MissingPackageError (`package.missing`) naming the one that is not installed.
 */
function serviceCommands(): Promise<typeof RunServiceCommands> {
  return importOptional('fastify', () => importOptional('jose', () => import('./commands/run-service.js')));
}
