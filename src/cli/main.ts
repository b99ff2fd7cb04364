/**
 * `harness`: the operator CLI (docs/cli.md). Exit codes: 0 ok, 1 runtime error, 2 usage/validation,
 * 3 not found, 4 Temporal not reachable, 5 refused by the run.
 */
import { CommanderError } from 'commander';
import { isHarnessError } from '../contract/errors.js';
import { CliError, EXIT } from './errors.js';
import { buildProgram } from './program.js';

/** Validation failures raised by shared code that mean "bad input", not "broken system". */
const USAGE_CODES = new Set([
  'run.invalid_input',
  'run.policy_not_allowed',
  'devserver.config_invalid',
  'codec.keys_invalid',
  'codec.not_configured',
  'service.config_invalid',
  'service.dev_identity_missing',
]);

/** The exit code for an error thrown by a command. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (isHarnessError(err) && USAGE_CODES.has(err.code)) return EXIT.usage;
  return EXIT.runtime;
}

/**
 * Run the CLI with `argv` (without node and script). Resolves with the exit code; never throws.
 * Errors go to stderr (as `{"error":{...}}` with `--json`).
 */
export async function main(argv: readonly string[]): Promise<number> {
  const result = { exitCode: EXIT.ok as number };
  const program = buildProgram(result);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return result.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
        ? EXIT.ok
        : EXIT.usage;
    }
    const code = exitCodeOf(err);
    const message = err instanceof Error ? err.message : String(err);
    if (argv.includes('--json')) {
      process.stderr.write(
        `${JSON.stringify({ error: { code: isHarnessError(err) ? err.code : 'cli.error', message, exitCode: code } })}\n`,
      );
    } else {
      process.stderr.write(`harness: ${message}\n`);
    }
    return code;
  }
}

/**
 * Exit once stdout and stderr are flushed: writes to a pipe can still be queued, and a bare
 * `process.exit` would cut long output (`events --json`) short. Exiting explicitly also ends the
 * process when a library keeps a handle open.
 */
export async function exitAfterFlush(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map((s) => new Promise<void>((r) => s.write('', () => r()))),
  );
  process.exit(code);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await exitAfterFlush(await main(process.argv.slice(2)));
}
