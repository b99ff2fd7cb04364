import { Command } from 'commander';
import type { CommandKit } from './command-kit.js';
import { createOutput } from './output.js';
import { registerAppDataCommands } from './register-app-data.js';
import { registerDecisionCommands } from './register-decisions.js';
import { registerDiagnosticCommands } from './register-diagnostics.js';
import { registerProcessCommands } from './register-processes.js';
import { registerProofCommands } from './register-proof.js';
import { registerRunCommands } from './register-runs.js';
import { registerSealLogCommands } from './register-seal-log.js';
import { loadHarnessApp } from '../worker/app.js';

/** The exit code of the command that ran, set by the action. */
export interface ProgramResult {
  exitCode: number;
}

/**
 * The `harness` command tree (command modules load on use, so `--help` and light verbs start fast) (docs/cli.md). Each action sets `result.exitCode`; errors propagate to
 * the caller (src/cli/main.ts maps them to exit codes).
 */
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
  const kit: CommandKit = {
    out: (cmd) => createOutput(Boolean(cmd.optsWithGlobals<{ json?: boolean }>().json)),
    appOf: (cmd) => loadHarnessApp(cmd.optsWithGlobals<{ app?: string }>().app),
    run: (fn) => fn().then((code) => void (result.exitCode = code)),
  };
  // In this order in `harness --help`.
  registerProcessCommands(program, kit);
  registerRunCommands(program, kit);
  registerDecisionCommands(program, kit);
  registerDiagnosticCommands(program, kit);
  registerAppDataCommands(program, kit);
  registerProofCommands(program, kit);
  registerSealLogCommands(program, kit);
  return program;
}
