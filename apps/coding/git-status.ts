import { z } from 'zod';
import type { ToolExecution } from '../../src/index.js';
import { parseCodingArgs } from './coding-args.js';
import type { CodingTool, ResolvedCodingConfig } from './coding-config.js';
import { gitOk } from './git-runner.js';

/** At most this many changed paths are listed. */
const MAX_ENTRIES = 200;

const ArgsSchema = z.object({}).strict();

/**
 * `git.status` v1 (read): the current branch, HEAD sha and the changed paths of the working
 * repository (`git status --porcelain=v1 -z`). Output `{ branch, head, entries: [{ path, index,
 * worktree }], truncated }`, at most 200 entries. Fails with `coding.git_failed` (e.g. a repository
 * without commits).
 */
export function createGitStatusTool(config: ResolvedCodingConfig): CodingTool {
  return {
    definition: {
      name: 'git.status',
      version: 'v1',
      description: 'Show the current branch, HEAD commit and the changed files of the working repository.',
      effect: 'read',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        parseCodingArgs(ArgsSchema, call);
        const opts = { signal: ctx.signal, env: config.gitEnv };
        const branch = (await gitOk(config.repoDir, ['rev-parse', '--abbrev-ref', 'HEAD'], opts)).trim();
        const head = (await gitOk(config.repoDir, ['rev-parse', 'HEAD'], opts)).trim();
        const raw = await gitOk(
          config.repoDir,
          ['status', '--porcelain=v1', '-z', '--untracked-files=all'],
          opts,
        );
        const entries: { path: string; index: string; worktree: string }[] = [];
        const fields = raw.split('\0').filter((f) => f.length > 0);
        let total = 0;
        for (let i = 0; i < fields.length; i++) {
          const field = fields[i] ?? '';
          const index = field[0] ?? ' ';
          total += 1;
          if (entries.length < MAX_ENTRIES)
            entries.push({ path: field.slice(3), index, worktree: field[1] ?? ' ' });
          if (index === 'R' || index === 'C') i += 1; // the rename source follows
        }
        return { output: { branch, head, entries, truncated: total > entries.length } };
      },
    },
  };
}
