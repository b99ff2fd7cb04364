import { ADVERSARIAL_VARIANTS, type RetailVariant } from './variants.js';

/** The command line of apps/retail/eval/main.ts. */
export const RETAIL_EVAL_USAGE =
  'usage: npm run eval:retail -- <tasks.json> [--task <id>...] [--limit N] [--variants gold,adversarial,fault] [--json] [--out dir]';

/** What the command line asks for. */
export interface RetailEvalArgs {
  readonly tasksFile: string;
  /** Only these task ids (in file order); empty: every task. */
  readonly taskIds: readonly string[];
  /** At most this many tasks (after `--task`). */
  readonly limit?: number;
  readonly variants: ReadonlySet<RetailVariant>;
  readonly json: boolean;
  readonly out?: string;
}

const VARIANT_NAMES: readonly string[] = ['gold', 'fault', ...ADVERSARIAL_VARIANTS];

/**
 * Read `--variants`: a comma list of `gold`, `adversarial` (every adversarial kind), `fault`, or single
 * adversarial kinds. Returns the variants or an error text.
 */
export function parseVariants(text: string): Set<RetailVariant> | string {
  const variants = new Set<RetailVariant>();
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (part === 'adversarial') for (const v of ADVERSARIAL_VARIANTS) variants.add(v);
    else if (VARIANT_NAMES.includes(part)) variants.add(part as RetailVariant);
    else
      return `unknown variant ${part} (one of gold, adversarial, fault, ${ADVERSARIAL_VARIANTS.join(', ')})`;
  }
  if (variants.size === 0) return '--variants names no variant';
  return variants;
}

/**
 * Parse the arguments after the script (`process.argv.slice(2)`): one tasks file, `--task <id>`
 * (repeatable, or a comma list), `--limit N`, `--variants <list>` (default `gold`), `--json`,
 * `--out <dir>`; `--opt=value` forms too. Returns a usage message for anything else.
 */
export function parseRetailEvalArgs(args: readonly string[]): RetailEvalArgs | { readonly usage: string } {
  const fail = (why: string) => ({ usage: `${why}\n${RETAIL_EVAL_USAGE}` });
  const files: string[] = [];
  const taskIds: string[] = [];
  let limit: number | undefined;
  let variants = new Set<RetailVariant>(['gold']);
  let json = false;
  let out: string | undefined;
  for (let i = 0; i < args.length; i += 1) {
    let a = args[i]!;
    let value: string | undefined;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      value = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const take = (): string | undefined => {
      if (value !== undefined) return value || undefined;
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) return undefined;
      i += 1;
      return next;
    };
    if (a === '--json') json = true;
    else if (a === '--task') {
      const v = take();
      if (v === undefined) return fail('--task needs a task id');
      taskIds.push(...v.split(',').filter(Boolean));
    } else if (a === '--limit') {
      const v = take();
      const n = Number(v);
      if (v === undefined || !Number.isInteger(n) || n < 1) return fail('--limit needs a positive integer');
      limit = n;
    } else if (a === '--variants') {
      const v = take();
      if (v === undefined) return fail('--variants needs a list');
      const parsed = parseVariants(v);
      if (typeof parsed === 'string') return fail(parsed);
      variants = parsed;
    } else if (a === '--out') {
      const v = take();
      if (v === undefined) return fail('--out needs a folder');
      out = v;
    } else if (a.startsWith('--')) return fail(`unknown option ${a}`);
    else files.push(a);
  }
  if (files.length !== 1)
    return fail(files.length === 0 ? 'no tasks file given' : `one tasks file, not ${files.length}`);
  return {
    tasksFile: files[0]!,
    taskIds,
    ...(limit !== undefined ? { limit } : {}),
    variants,
    json,
    ...(out !== undefined ? { out } : {}),
  };
}
