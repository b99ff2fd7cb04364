import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EVAL_USAGE, parseEvalArgs } from '../../../../apps/refund/eval/eval-args.js';
import { projectRoot } from '../../../../src/devserver/config.js';

const run = promisify(execFile);

describe('npm run eval -- <dir>: the command line', () => {
  it('takes the cases folder alone, as docs/evaluation.md writes it', () => {
    expect(parseEvalArgs(['eval/cases/refund'])).toEqual({ dir: 'eval/cases/refund', json: false });
  });

  it('takes --out and --json before or after the folder', () => {
    const want = { dir: 'eval/cases/refund', out: '.data/x', json: true };
    expect(parseEvalArgs(['eval/cases/refund', '--out', '.data/x', '--json'])).toEqual(want);
    expect(parseEvalArgs(['--out', '.data/x', 'eval/cases/refund', '--json'])).toEqual(want);
    expect(parseEvalArgs(['--json', '--out=.data/x', 'eval/cases/refund'])).toEqual(want);
  });

  it('answers the usage for what it cannot run', () => {
    for (const args of [
      [],
      ['--json'],
      ['eval/cases/refund', '--out'],
      ['eval/cases/refund', '--out', '--json'],
      ['eval/cases/refund', '--out='],
      ['a', 'b'],
      ['eval/cases/refund', '--verbose'],
    ])
      expect(parseEvalArgs(args), args.join(' ')).toEqual({
        usage: expect.stringContaining(EVAL_USAGE) as string,
      });
  });

  it('the script exits 2 with the usage only for a bad command line', { timeout: 60_000 }, async () => {
    const tsx = join(projectRoot, 'node_modules', '.bin', 'tsx');
    const main = join(projectRoot, 'apps', 'refund', 'eval', 'main.ts');
    const bad = await run(tsx, [main, '--json'], { cwd: projectRoot }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(bad?.code).toBe(2);
    expect(bad?.stderr).toContain(EVAL_USAGE);
  });
});
