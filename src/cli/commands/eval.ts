import { CliError, EXIT } from '../errors.js';

/** `harness eval <dir>`: not yet implemented (src/eval is not there yet). @throws CliError exit 1. */
export function evalCommand(dir: string): Promise<number> {
  return Promise.reject(new CliError('cli.not_implemented', `eval ${dir}: not yet implemented`, EXIT.runtime));
}
