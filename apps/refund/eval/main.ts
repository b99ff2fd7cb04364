/**
 * The refund app's offline evaluation: `npm run eval -- <dir> [--out <dir>] [--json]`
 * (docs/evaluation.md). Exit 0 when every case passed, 1 when any failed, 2 when it could not run.
 */
import { parseEvalArgs } from './eval-args.js';
import { runEvalCommand } from './run-eval.js';

const parsed = parseEvalArgs(process.argv.slice(2));
if ('usage' in parsed) {
  console.error(parsed.usage);
  process.exit(2);
}
process.exit(
  await runEvalCommand(parsed.dir, {
    json: parsed.json,
    ...(parsed.out !== undefined ? { out: parsed.out } : {}),
  }),
);
