/**
 * The retail app's evaluation: `npm run eval:retail -- <tasks.json> [--task <id>...] [--limit N]
 * [--variants gold,adversarial,fault] [--json] [--out dir]` (apps/retail/eval/README.md). Exit 0 when
 * every scenario passed, 1 when any failed, 2 when it could not run.
 */
import { parseRetailEvalArgs } from './eval-args.js';
import { runRetailEvalCommand } from './eval-command.js';

const parsed = parseRetailEvalArgs(process.argv.slice(2));
if ('usage' in parsed) {
  console.error(parsed.usage);
  process.exit(2);
}
process.exit(await runRetailEvalCommand(parsed));
