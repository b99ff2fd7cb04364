/**
 * The refund app's offline evaluation: `npm run eval -- <dir> [--out <dir>] [--json]`
 * (docs/evaluation.md). Exit 0 when every case passed, 1 when any failed, 2 when it could not run.
 */
import { runEvalCommand } from './run-eval.js';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args[outAt + 1] : undefined;
const dir = args.find((a, i) => !a.startsWith('--') && i !== outAt + 1);
if (!dir || (outAt >= 0 && !out)) {
  console.error('usage: npm run eval -- <cases-dir> [--out <dir>] [--json]');
  process.exit(2);
}
process.exit(await runEvalCommand(dir, { json: args.includes('--json'), ...(out ? { out } : {}) }));
