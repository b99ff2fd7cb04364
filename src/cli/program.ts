import { Command, Option } from 'commander';
import type { CancelOptions } from './commands/cancel.js';
import type { CodecServerCommandOptions } from './commands/codec-server.js';
import type { KeysCreateOptions } from './commands/keys.js';
import type { DecideOptions, ProvideInputOptions, ReconcileOptions } from './commands/decide.js';
import type { EventsOptions } from './commands/events.js';
import type { FailuresExportOptions, FailuresListOptions } from './commands/failures.js';
import type { MemoryForgetOptions, MemoryListOptions } from './commands/memory.js';
import type { MetricsOptions } from './commands/metrics.js';
import type { BundlesDirOptions } from './commands/bundles.js';
import type { StartOptions } from './commands/start.js';
import type { ServeOptions, TokenOptions } from './commands/run-service.js';
import { createOutput, type Output } from './output.js';
import { loadHarnessApp, type HarnessApp } from '../worker/app.js';

/** The exit code of the command that ran, set by the action. */
export interface ProgramResult {
  exitCode: number;
}

/**
 * The `harness` command tree (command modules load on use, so `--help` and light verbs start fast) (docs/cli.md). Each action sets `result.exitCode`; errors propagate to
 * the caller (src/cli/main.ts maps them to exit codes).
 */
/** The signing options of every decision command (docs/authorization.md). */
const KEY_HELP = 'your signing key file (default: HARNESS_KEY)';
const PRINT_HELP = 'print the signed payload (for `temporal workflow signal --input`) instead of sending it';

export function buildProgram(result: ProgramResult): Command {
  const program = new Command('harness')
    .description('Operate agent-harness runs on Temporal')
    .option('--json', 'machine-readable output on stdout (errors as JSON on stderr)')
    .option(
      '--app <module>',
      'the app module (default: HARNESS_APP, else "agentHarness.app" in the nearest package.json)',
    )
    .showHelpAfterError()
    .exitOverride();
  const out = (cmd: Command): Output => createOutput(Boolean(cmd.optsWithGlobals<{ json?: boolean }>().json));
  const appOf = (cmd: Command): Promise<HarnessApp> =>
    loadHarnessApp(cmd.optsWithGlobals<{ app?: string }>().app);
  const run = (fn: () => Promise<number>): Promise<void> =>
    fn().then((code) => void (result.exitCode = code));

  program
    .command('worker')
    .description('run a worker process (TEMPORAL_ADDRESS or the dev server; it starts no server)')
    .action((_o, cmd: Command) =>
      run(async () => (await import('./commands/serve.js')).workerCommand(await appOf(cmd))),
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
    .action((o: ServeOptions, cmd: Command) =>
      run(async () =>
        (await import('./commands/run-service.js')).serveCommand(await appOf(cmd), o, out(cmd)),
      ),
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
      run(async () => (await import('./commands/run-service.js')).tokenCommand(o, out(cmd))),
    );

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

  program
    .command('codec-server')
    .description(
      'serve the codec protocol so the Temporal Web UI shows decrypted payloads (docs/security.md)',
    )
    .option('--port <n>', 'port (0: any free port)', '8888')
    .option('--host <ip>', 'interface to bind', '127.0.0.1')
    .option('--origin <url...>', 'browser origins allowed (default: TEMPORAL_UI_URL, else the dev server UI)')
    .action((o: CodecServerCommandOptions, cmd: Command) =>
      run(async () => (await import('./commands/codec-server.js')).codecServerCommand(o, out(cmd))),
    );

  program
    .command('replay <idOrFile>')
    .description(
      'replay a history (workflow id, a history .json file, or a failure sample folder) against the current workflow code',
    )
    .action((arg: string, _o, cmd: Command) =>
      run(async () => (await import('./commands/replay.js')).replayCommand(await appOf(cmd), arg, out(cmd))),
    );

  program
    .command('history <id>')
    .description('export a workflow history as JSON (stdout, or --out file) for replay')
    .option('--out <file>', 'write to this file')
    .action((id: string, o: { out?: string }, cmd: Command) =>
      run(async () => (await import('./commands/replay.js')).historyCommand(id, o, out(cmd))),
    );

  const failures = program
    .command('failures')
    .description('failure samples of runs that ended failed, budget_exhausted or blocked by a guardrail');
  failures
    .command('list')
    .description('list failure samples from the evidence store (newest first)')
    .option('--since <time>', 'only samples of runs that ended since: ISO 8601 time, or an age like 24h, 7d')
    .option('--reason <reason>', 'failed, budget_exhausted or guardrail_blocked')
    .option('--limit <n>', 'at most n rows', '50')
    .action((o: FailuresListOptions, cmd: Command) =>
      run(async () => (await import('./commands/failures.js')).failuresListCommand(o, out(cmd))),
    );
  failures
    .command('export <runId>')
    .description("write a run's failure sample folder (sample.json, history.json) for replay and evaluation")
    .option('--out <dir>', 'folder (default failure-samples/<runId>; with --as-case, failure-cases)')
    .option('--as-case', "write the app's evaluation case made from the sample instead")
    .action((runId: string, o: FailuresExportOptions, cmd: Command) =>
      run(async () =>
        (await import('./commands/failures.js')).failuresExportCommand(await appOf(cmd), runId, o, out(cmd)),
      ),
    );

  program
    .command('metrics')
    .description('every seed metric over the runs created in a time window (docs/metrics.md)')
    .option('--since <time>', 'runs created since: ISO 8601 time, or an age like 24h, 7d', '24h')
    .option('--until <time>', 'runs created before: ISO 8601 time or an age (default: now)')
    .option('--tenant <id>', 'only runs started for this tenant')
    .option('--limit <n>', `at most n runs, the newest (max 5000)`, '500')
    .option('--no-history', 'read only the evidence store (no Temporal server: no queue wait)')
    .option('--replay', 'replay each failure sample against this build (failure reproduction)')
    .action((o: MetricsOptions, cmd: Command) =>
      run(async () => (await import('./commands/metrics.js')).metricsCommand(() => appOf(cmd), o, out(cmd))),
    );

  const memory = program
    .command('memory')
    .description("a thread's memory: verified facts its runs remembered (docs/context.md)");
  const scoped = (c: Command) =>
    c
      .requiredOption('--thread <id>', 'the thread')
      .option('--tenant <id>', 'the tenant the runs were started for')
      .option('--user <id>', 'the user the runs were started for');
  scoped(memory.command('list'))
    .description('what the next run of the thread recalls (the newest live entry per fact)')
    .option('--all', 'every entry, forgotten and expired ones too')
    .action((o: MemoryListOptions, cmd: Command) =>
      run(async () => (await import('./commands/memory.js')).memoryListCommand(o, out(cmd))),
    );
  scoped(memory.command('forget'))
    .description("forget the thread's entries (or one fact's); later runs no longer recall them")
    .option('--name <fact>', 'only this fact')
    .action((o: MemoryForgetOptions, cmd: Command) =>
      run(async () => (await import('./commands/memory.js')).memoryForgetCommand(o, out(cmd))),
    );

  const bundles = program
    .command('bundles')
    .description(
      'control-plane bundles: versioned prompts and policy data, and their rollout (docs/control-plane.md)',
    );
  const dirOption = (c: Command) =>
    c.option('--dir <folder>', 'the bundles folder (default: HARNESS_BUNDLES)');
  dirOption(bundles.command('list'))
    .description('every bundle version with its digest and rollout arms, and the rollout')
    .action((o: BundlesDirOptions, cmd: Command) =>
      run(async () => (await import('./commands/bundles.js')).bundlesListCommand(o, out(cmd))),
    );
  dirOption(bundles.command('validate'))
    .description('load the folder as a worker does; exit 2 naming the file and field when invalid')
    .action((o: BundlesDirOptions, cmd: Command) =>
      run(async () => (await import('./commands/bundles.js')).bundlesValidateCommand(o, out(cmd))),
    );
  dirOption(bundles.command('diff'))
    .description('what changed between two bundles (name@vN in the folder, or bundle files)')
    .argument('<a>', 'the old bundle: name@vN or a file')
    .argument('<b>', 'the new bundle: name@vN or a file')
    .action((a: string, b: string, o: BundlesDirOptions, cmd: Command) =>
      run(async () => (await import('./commands/bundles.js')).bundlesDiffCommand(a, b, o, out(cmd))),
    );

  return program;
}
