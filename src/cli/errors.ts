import { HarnessError } from '../contract/errors.js';

/**
 * Exit codes of `harness` (docs/cli.md). Stable: scripts branch on them.
 * - 0 success
 * - 1 runtime error (server error, a run that ended unsuccessfully under `--wait`, a replay that is not deterministic)
 * - 2 usage or validation error (bad option, invalid run input); nothing was started or sent
 * - 3 not found (workflow id, history file, input file)
 * - 4 Temporal not reachable
 * - 5 refused by the run: the decision or reconciliation was rejected, or the run is not in a state that takes it
 */
export const EXIT = { ok: 0, runtime: 1, usage: 2, notFound: 3, unreachable: 4, refused: 5 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A CLI failure with a stable `cli.*` code and the process exit code it maps to. */
export class CliError extends HarnessError {
  constructor(
    code: string,
    message: string,
    readonly exitCode: ExitCode,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}

/** A usage or validation error (exit 2) naming the offending option or field. */
export function usageError(message: string, details: Record<string, unknown> = {}): CliError {
  return new CliError('cli.usage', message, EXIT.usage, details);
}

/** Something named on the command line does not exist (exit 3). */
export function notFoundError(message: string, details: Record<string, unknown> = {}): CliError {
  return new CliError('cli.not_found', message, EXIT.notFound, details);
}

/** The run refused (or cannot take) what was asked (exit 5). */
export function refusedError(message: string, details: Record<string, unknown> = {}): CliError {
  return new CliError('cli.refused', message, EXIT.refused, details);
}
