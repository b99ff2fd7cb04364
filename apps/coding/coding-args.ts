import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { ToolCall } from '../../src/index.js';
import { normalizeRelativePath } from '../../src/index.js';
import { CodingErrorCode, CodingExampleError } from './coding-errors.js';

/** Branch names the coding tools accept (also checked by `git check-ref-format` semantics below). */
export const BRANCH_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$';

/** JSON schema of a branch argument. */
export const BRANCH_JSON_SCHEMA = {
  type: 'string',
  description: 'Branch name, e.g. agent/fix-readme.',
  minLength: 1,
  maxLength: 100,
  pattern: BRANCH_PATTERN,
} as const;

/** Parameters of the tools that take only a branch (`git.push`, `pipeline.run`). */
export const BRANCH_PARAMETERS = {
  type: 'object',
  properties: { branch: BRANCH_JSON_SCHEMA },
  required: ['branch'],
  additionalProperties: false,
} as const;

/** Zod side of {@link BRANCH_PARAMETERS}. */
export const BranchArgsSchema = z.object({ branch: z.string().min(1).max(100) }).strict();

/**
 * Check a call's arguments at the executor's boundary.
 * @throws CodingExampleError `coding.invalid_arguments` with the issues in details.
 */
export function parseCodingArgs<T>(schema: z.ZodType<T>, call: ToolCall): T {
  const parsed = schema.safeParse(call.args);
  if (!parsed.success) {
    throw new CodingExampleError(CodingErrorCode.invalidArguments, `invalid arguments for ${call.tool}`, {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/**
 * True for a branch name git accepts as `refs/heads/<name>` within {@link BRANCH_PATTERN}: no `..`,
 * no `//`, no segment starting with `.` or ending with `.lock`, no trailing `/` or `.`.
 */
export function isSafeBranch(name: string): boolean {
  if (!new RegExp(BRANCH_PATTERN).test(name)) return false;
  if (name.includes('..') || name.includes('//') || name.endsWith('/') || name.endsWith('.')) return false;
  return name.split('/').every((s) => s.length > 0 && !s.startsWith('.') && !s.endsWith('.lock'));
}

/**
 * @throws CodingExampleError `coding.invalid_arguments` for a branch name {@link isSafeBranch} refuses.
 */
export function checkBranch(name: string): string {
  if (!isSafeBranch(name)) {
    throw new CodingExampleError(
      CodingErrorCode.invalidArguments,
      `not an acceptable branch name: ${JSON.stringify(name).slice(0, 120)}`,
      {
        branch: name.slice(0, 120),
      },
    );
  }
  return name;
}

/**
 * Confine a repository path given by a model: relative, clean (see `normalizeRelativePath` of the
 * policy), inside `repoDir` after resolution, and not inside `.git`. Returns the normalised
 * repository-relative path with `/` separators.
 *
 * @throws CodingExampleError `coding.invalid_arguments` naming the path and the reason.
 */
export function confineRepoPath(repoDir: string, value: string): string {
  const check = normalizeRelativePath(value);
  const refuse = (reason: string): never => {
    throw new CodingExampleError(
      CodingErrorCode.invalidArguments,
      `path ${JSON.stringify(value).slice(0, 200)} refused: ${reason}`,
      {
        path: value.slice(0, 200),
        reason,
      },
    );
  };
  if (!check.ok) return refuse(check.code);
  if (check.segments.length === 0) return refuse('the repository root itself');
  if (check.segments.some((s) => s.toLowerCase() === '.git')) return refuse('inside .git');
  const root = resolve(repoDir);
  const target = resolve(root, ...check.segments);
  const rel = relative(root, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return refuse('outside the repository');
  return rel.split(sep).join('/');
}
