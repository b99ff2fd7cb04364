import { resolve } from 'node:path';
import type { ToolRegistrar } from '../refund/tools/refund-tools.js';
import { childProcessEnv, defaultChildHome } from './child-env.js';
import type { CodingTool, CodingToolsConfig, ResolvedCodingConfig } from './coding-config.js';
import { createGitCommitTool } from './git-commit.js';
import { createGitPushTool } from './git-push.js';
import { createGitStatusTool } from './git-status.js';
import { createGitVerifyRemoteBranchTool } from './git-verify-remote-branch.js';
import { createPipelineRunTool } from './pipeline-run.js';

/**
 * Apply defaults and make directories absolute; build the git environment.
 * @throws the `mkdtemp` error when no `homeDir` is configured and the temp directory is not writable.
 */
export function resolveCodingConfig(config: CodingToolsConfig): ResolvedCodingConfig {
  const [cmd = 'sh', ...rest] = config.testCommand ?? ['sh', 'test.sh'];
  const identity = config.identity ?? { name: 'Agent Harness', email: 'harness@example.invalid' };
  const homeDir = resolve(config.homeDir ?? defaultChildHome());
  return {
    repoDir: resolve(config.repoDir),
    remoteDir: resolve(config.remoteDir),
    remoteName: config.remoteName ?? 'origin',
    testCommand: [cmd, ...rest],
    pipelineTimeoutMs: config.pipelineTimeoutMs ?? 60_000,
    identity,
    homeDir,
    gitEnv: childProcessEnv({ home: homeDir, identity }),
  };
}

/**
 * The coding tools over real git: git.status@v1 (read), git.commit@v1 (write), git.push@v1 (write),
 * git.verify_remote_branch@v1 (read), pipeline.run@v2 (write: it runs repository code). Every child
 * process (git, hooks, the test command) gets only the environment of `childProcessEnv`.
 * Directories are not checked here: a missing repository makes each call fail with `coding.git_failed`.
 * @throws the `mkdtemp` error of the default HOME (see {@link resolveCodingConfig}).
 */
export function createCodingTools(config: CodingToolsConfig): CodingTool[] {
  const resolved = resolveCodingConfig(config);
  return [
    createGitStatusTool(resolved),
    createGitCommitTool(resolved),
    createGitPushTool(resolved),
    createGitVerifyRemoteBranchTool(resolved),
    createPipelineRunTool(resolved),
  ];
}

/**
 * Register the coding tools with `registry`.
 * @throws whatever `registry.register` throws (e.g. `registry.conflict`).
 */
export function registerCodingTools(registry: ToolRegistrar, config: CodingToolsConfig): CodingTool[] {
  const tools = createCodingTools(config);
  for (const tool of tools) registry.register(tool.definition, tool.executor);
  return tools;
}
