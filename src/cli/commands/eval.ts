import { runEvalCommand } from '../../eval/run-eval.js';
import type { Output } from '../output.js';

/**
 * `harness eval <dir>`: run the evaluation cases of `dir` (src/eval/run-eval.ts). Exit 0 when every
 * case passed, 1 when any failed, 2 when the evaluation could not run. Never throws.
 */
export function evalCommand(dir: string, o: { out?: string }, out: Output): Promise<number> {
  return runEvalCommand(dir, { json: out.json, ...(o.out ? { out: o.out } : {}) });
}
