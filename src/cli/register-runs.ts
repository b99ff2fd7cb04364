import type { Command } from 'commander';
import type { EventsOptions } from './commands/events.js';
import type { StartOptions } from './commands/start.js';
import type { CommandKit } from './command-kit.js';

/**
 * Registers the commands that start and read runs: `start`, `list`, `show` and `events`.
 * Command modules load on use; an action's errors propagate to the caller (src/cli/main.ts maps
 * them to exit codes).
 */
export function registerRunCommands(program: Command, { out, appOf, run }: CommandKit): void {
  program
    .command('start <profile>')
    .description('start an agentRun; <profile> is name or name@vN (e.g. refund.graph)')
    .requiredOption('--input <json|@file>', 'the task: a JSON object, inline or @file')
    .option('--version <vN>', 'profile version (default: the highest registered)')
    .option('--policy <name@vN>', "policy (default: the app's default policy for the profile)")
    .option('--id <workflowId>', 'workflow id (default: <profile>-<time>-<random>)')
    .option('--model-route <route>', "model route (default: the composition's default route)")
    .option('--budget <json|@file>', 'budget overrides, e.g. {"maxSteps":10}')
    .option('--approval-timeout <seconds>', 'how long an approval request stays open')
    .option('--thread <id>', 'thread id')
    .option('--tenant <id>', 'tenant id')
    .option('--user <id>', "user id (with --key: the key's principal, the default)")
    .option('--key <file>', 'sign the start with this key file: the run is for its principal')
    .option('--wait', 'wait until the run ends (status changes on stderr)')
    .action((profile: string, o: StartOptions, cmd: Command) =>
      run(async () =>
        (await import('./commands/start.js')).startCommand(await appOf(cmd), profile, o, out(cmd)),
      ),
    );

  program
    .command('list')
    .description('list agentRun workflows (newest first)')
    .option('--status <status>', 'only runs with this AgentStatus, e.g. awaiting_confirmation')
    .option('--limit <n>', 'at most n rows', '50')
    .action((o: { status?: string; limit: string }, cmd: Command) =>
      run(async () => (await import('./commands/list.js')).listCommand(o, out(cmd))),
    );

  program
    .command('show <id>')
    .description("a run's state: status, pending action, invocations, artifacts, budget, versions")
    .action((id: string, _o, cmd: Command) =>
      run(async () => (await import('./commands/show.js')).showCommand(id, out(cmd))),
    );

  program
    .command('events <id>')
    .description("a run's events from the evidence store")
    .option('--follow', 'keep polling until the run is closed')
    .option('--after <seq>', 'only events after this sequence number', '0')
    .option('--interval <ms>', 'poll interval with --follow', '500')
    .action((id: string, o: EventsOptions, cmd: Command) =>
      run(async () => (await import('./commands/events.js')).eventsCommand(id, o, out(cmd))),
    );
}
