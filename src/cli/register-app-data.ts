import type { Command } from 'commander';
import type { BundlesDirOptions } from './commands/bundles.js';
import type { MemoryForgetOptions, MemoryListOptions } from './commands/memory.js';
import type { CommandKit } from './command-kit.js';

/**
 * Registers the commands over what an app keeps across runs: a thread's `memory` (list, forget) and
 * the control-plane `bundles` (list, validate, diff).
 * Command modules load on use; an action's errors propagate to the caller (src/cli/main.ts maps
 * them to exit codes).
 */
export function registerAppDataCommands(program: Command, { out, run }: CommandKit): void {
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
}
