import { HarnessError } from '../../src/index.js';

/** Stable codes of the coding example's tools. */
export const CodingErrorCode = {
  /** Arguments failed the executor's own check (bad branch name, path outside the repository, ...). */
  invalidArguments: 'coding.invalid_arguments',
  /** `git.commit`: none of the given paths has a change to commit. */
  nothingToCommit: 'coding.nothing_to_commit',
  /** The branch does not exist locally (`git.push`) or on the remote (`pipeline.run`). */
  branchNotFound: 'coding.branch_not_found',
  /**
   * `pipeline.run`: the remote branch is at a commit no `git.push` of this run put there (no push
   * marker of the run for that branch and sha). Nothing was run.
   */
  notPushedByRun: 'coding.not_pushed_by_run',
  /** The remote refused the push (e.g. not a fast-forward). Nothing changed on the remote. */
  pushRejected: 'coding.push_rejected',
  /** A git command failed for another reason; `details.stderr` holds its bounded error output. */
  gitFailed: 'coding.git_failed',
} as const;
export type CodingErrorCode = (typeof CodingErrorCode)[keyof typeof CodingErrorCode];

/** An error of the coding example's tools. Executors throw it; the harness records a terminal failure. */
export class CodingExampleError extends HarnessError {
  declare readonly code: CodingErrorCode;
  constructor(code: CodingErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
