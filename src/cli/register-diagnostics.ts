import type { Command } from 'commander';
import type { CodecServerCommandOptions } from './commands/codec-server.js';
import type { FailuresExportOptions, FailuresListOptions } from './commands/failures.js';
import type { MetricsOptions } from './commands/metrics.js';
import type { CommandKit } from './command-kit.js';

/**
 * Registers the commands that look into what runs did: `codec-server` (decrypted payloads in the
 * Web UI), `replay`, `history`, `failures list|export` and `metrics`.
 * Command modules load on use; an action's errors propagate to the caller (src/cli/main.ts maps
 * them to exit codes).
 */
export function registerDiagnosticCommands(program: Command, { out, appOf, run }: CommandKit): void {
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
}
