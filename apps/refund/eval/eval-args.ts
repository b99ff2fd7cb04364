/** The command line of `npm run eval -- <cases-dir> [--out <dir>] [--json]` (apps/refund/eval/main.ts). */
export const EVAL_USAGE = 'usage: npm run eval -- <cases-dir> [--out <dir>] [--json]';

/** What the command line asks for. */
export interface EvalArgs {
  readonly dir: string;
  readonly out?: string;
  readonly json: boolean;
}

/**
 * Parse the arguments after the script (`process.argv.slice(2)`): one cases folder, `--out <dir>` (or
 * `--out=<dir>`) and `--json`, in any order. Returns a usage message for anything else: no folder, two
 * folders, `--out` without a value, an unknown option.
 */
export function parseEvalArgs(args: readonly string[]): EvalArgs | { readonly usage: string } {
  const fail = (why: string) => ({ usage: `${why}\n${EVAL_USAGE}` });
  const dirs: string[] = [];
  let out: string | undefined;
  let json = false;
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    if (a === '--json') json = true;
    else if (a === '--out') {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) return fail('--out needs a folder');
      out = value;
      i += 1;
    } else if (a.startsWith('--out=')) {
      out = a.slice('--out='.length);
      if (!out) return fail('--out needs a folder');
    } else if (a.startsWith('--')) return fail(`unknown option ${a}`);
    else dirs.push(a);
  }
  if (dirs.length !== 1)
    return fail(dirs.length === 0 ? 'no cases folder given' : `one cases folder, not ${dirs.length}`);
  return { dir: dirs[0]!, json, ...(out !== undefined ? { out } : {}) };
}
