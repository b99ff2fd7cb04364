import { Option, type Command } from 'commander';
import type { CancelOptions } from './commands/cancel.js';
import type {
  DecideOptions,
  MoreInfoOptions,
  ProvideInputOptions,
  ReconcileOptions,
} from './commands/decide.js';
import type { KeysCreateOptions } from './commands/keys.js';
import type { CommandKit } from './command-kit.js';

/** The signing options of every decision command (docs/authorization.md). */
const KEY_HELP = 'your signing key file (default: HARNESS_KEY)';
const PRINT_HELP = 'print the signed payload (for `temporal workflow signal --input`) instead of sending it';

/**
 * Registers the commands that act on a run with a signed decision or signal (`approve`, `confirm`,
 * `reject`, `request-more-info`, `reconcile`, `input`, `cancel`) and `keys create` for the signing keys.
 * Command modules load on use; an action's errors propagate to the caller (src/cli/main.ts maps
 * them to exit codes).
 */
export function registerDecisionCommands(program: Command, { out, run }: CommandKit): void {
  program
    .command('approve <id>')
    .description('approve the pending action, signed with your key (exit 5 when the run refuses it)')
    .option('--key <file>', KEY_HELP)
    .option('--print', PRINT_HELP)
    .option(
      '--action <actionId>',
      'the pending action you approve (checked; without it you confirm at a terminal, and with no terminal nothing is signed)',
    )
    .option('--reason <text>', 'why')
    .action((id: string, o: DecideOptions, cmd: Command) =>
      run(async () => (await import('./commands/decide.js')).approveCommand(id, o, out(cmd))),
    );

  program
    .command('confirm <id>')
    .description("the customer's own confirmation of the pending action (exit 5 when the run refuses it)")
    .option('--key <file>', KEY_HELP)
    .option('--print', PRINT_HELP)
    .option(
      '--action <actionId>',
      'the pending action you confirm (checked; without it you confirm at a terminal, and with no terminal nothing is signed)',
    )
    .option('--reason <text>', 'why')
    .action((id: string, o: DecideOptions, cmd: Command) =>
      run(async () => (await import('./commands/decide.js')).confirmCommand(id, o, out(cmd))),
    );

  program
    .command('reject <id>')
    .description('reject the pending action, signed with your key (exit 5 when the run refuses it)')
    .option('--key <file>', KEY_HELP)
    .option('--print', PRINT_HELP)
    .option(
      '--action <actionId>',
      'the pending action you reject (checked; without it you confirm at a terminal, and with no terminal nothing is signed)',
    )
    .option('--reason <text>', 'why (required)')
    .action((id: string, o: DecideOptions, cmd: Command) =>
      run(async () => (await import('./commands/decide.js')).rejectCommand(id, o, out(cmd))),
    );

  program
    .command('request-more-info <id>')
    .description(
      "instead of deciding, ask the run's requester a question about the pending action, signed (exit 5 when the run refuses it)",
    )
    .option('--key <file>', KEY_HELP)
    .option('--print', PRINT_HELP)
    .option(
      '--action <actionId>',
      'the pending action you ask about (checked; without it you confirm at a terminal, and with no terminal nothing is signed)',
    )
    .requiredOption('--question <text>', 'what the requester should answer')
    .action((id: string, o: MoreInfoOptions, cmd: Command) =>
      run(async () => (await import('./commands/decide.js')).requestMoreInfoCommand(id, o, out(cmd))),
    );

  program
    .command('reconcile <id>')
    .description('settle an invocation whose outcome is unknown (exit 5 when the run rejects it)')
    .option('--key <file>', KEY_HELP)
    .option('--print', PRINT_HELP)
    .requiredOption('--invocation <seq>', 'invocation sequence number')
    .addOption(
      new Option('--outcome <outcome>', 'what happened in the external system')
        .choices(['succeeded', 'failed', 'not_applied'])
        .makeOptionMandatory(),
    )
    .option('--external-id <id>', "the effect's id in the external system (only with --outcome succeeded)")
    .option('--evidence <json|@file>', 'what the decision rests on (JSON object)')
    .action((id: string, o: ReconcileOptions, cmd: Command) =>
      run(async () => (await import('./commands/decide.js')).reconcileCommand(id, o, out(cmd))),
    );

  program
    .command('input <id>')
    .description('answer a run waiting in awaiting_input with the provideInput signal (exit 5 when refused)')
    .option('--key <file>', KEY_HELP)
    .option('--print', PRINT_HELP)
    .option('--slot <slot>', 'slot to fill (default: the slot the run waits for)')
    .requiredOption('--value <text>', 'the value')
    .action((id: string, o: ProvideInputOptions, cmd: Command) =>
      run(async () => (await import('./commands/decide.js')).provideInputCommand(id, o, out(cmd))),
    );

  program
    .command('cancel <id>')
    .description('cancel a run with the cancelRun signal (or Temporal cancellation) and wait for it to close')
    .option('--reason <text>', 'why (default: "cancelled from the harness CLI")')
    .option('--key <file>', 'your signing key file (default: HARNESS_KEY; not needed with --temporal)')
    .option('--temporal', 'use Temporal cancellation instead of the cancelRun signal')
    .option('--no-wait', 'do not wait for the run to close')
    .option('--timeout <seconds>', 'how long to wait for the run to close', '60')
    .action((id: string, o: CancelOptions, cmd: Command) =>
      run(async () => (await import('./commands/cancel.js')).cancelCommand(id, o, out(cmd))),
    );

  program
    .command('keys')
    .description('signing keys for decisions (docs/authorization.md)')
    .command('create')
    .description('create an Ed25519 key pair: the private key to --out, the registry entry printed or added')
    .requiredOption('--principal <id>', 'who the key belongs to (e.g. alice@example.com)')
    .requiredOption('--out <file>', 'where to write the private key file (never overwritten; mode 0600)')
    .option('--key-id <id>', 'the key id (default <principal>-<date>)')
    .option('--kind <kind>', 'operator, approver, customer or service', 'approver')
    .option('--role <role...>', 'roles (default approver; none for a customer)')
    .option('--registry <file>', 'add the entry to this registry file (created if missing)')
    .action((o: KeysCreateOptions, cmd: Command) =>
      run(async () => (await import('./commands/keys.js')).keysCreateCommand(o, out(cmd))),
    );
}
