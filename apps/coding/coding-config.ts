import type { ToolDefinition, ToolExecutor } from '../../src/index.js';
import type { GitIdentity } from './child-env.js';

/**
 * Where the coding tools work. Trusted worker-side configuration: a model never names a directory,
 * a remote URL or a command.
 */
export interface CodingToolsConfig {
  /** The working repository (non-bare) every tool runs in. */
  readonly repoDir: string;
  /** The remote the tools push to and read from: a local bare repository (path). */
  readonly remoteDir: string;
  /** Remote name written into artifacts; default `origin`. */
  readonly remoteName?: string;
  /** The pipeline's test command, run without a shell in a fresh clone; default `['sh', 'test.sh']`. */
  readonly testCommand?: readonly string[];
  /** Pipeline timeout; default 60 s (a timed-out run is a failed verification). */
  readonly pipelineTimeoutMs?: number;
  /** Author and committer of commits; default `Agent Harness <harness@example.invalid>`. */
  readonly identity?: GitIdentity;
  /**
   * HOME of git and the repository hooks; default one empty temp directory per worker process
   * (`defaultChildHome`). Never the worker's own HOME: its git configuration and credentials stay out.
   */
  readonly homeDir?: string;
}

/** {@link CodingToolsConfig} with defaults applied and directories absolute. */
export interface ResolvedCodingConfig {
  readonly repoDir: string;
  readonly remoteDir: string;
  readonly remoteName: string;
  readonly testCommand: readonly [string, ...string[]];
  readonly pipelineTimeoutMs: number;
  readonly identity: GitIdentity;
  readonly homeDir: string;
  /** The whole environment of every git command and hook (`childProcessEnv` of homeDir and identity). */
  readonly gitEnv: Readonly<Record<string, string>>;
}

/** A coding tool: its model-visible definition and its executor bound to the configuration. */
export interface CodingTool {
  readonly definition: ToolDefinition;
  readonly executor: ToolExecutor;
}

/** Schema version written on every artifact of the coding tools. */
export const CODING_ARTIFACT_SCHEMA_VERSION = '1';

/**
 * The external id of a remote branch state, shared by `git.push` (observed) and the checks that
 * verify it: `<remote>/<branch>@<sha>`. A check links to the push only when it saw the same sha.
 */
export function remoteBranchExternalId(remote: string, branch: string, sha: string): string {
  return `${remote}/${branch}@${sha}`;
}
