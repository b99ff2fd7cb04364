import { HarnessError } from '../../src/index.js';
import type { CodingToolsConfig } from './coding-config.js';

/**
 * The coding tools' configuration from the environment, or undefined when they are not enabled:
 * - `HARNESS_CODING_REPO`: the working repository;
 * - `HARNESS_CODING_REMOTE`: the bare repository `git.push` pushes to (as remote `origin`);
 * - `HARNESS_CODING_TEST_TIMEOUT_MS` (optional): pipeline timeout.
 *
 * The worker and the CLI must see the same variables: the tools are part of the registry digest a
 * run pins.
 * @throws HarnessError `coding.config_invalid` when only one of the two directories is set or the
 *   timeout is not a positive integer.
 */
export function codingConfigFromEnv(env: NodeJS.ProcessEnv): CodingToolsConfig | undefined {
  const repoDir = env.HARNESS_CODING_REPO;
  const remoteDir = env.HARNESS_CODING_REMOTE;
  if (!repoDir && !remoteDir) return undefined;
  if (!repoDir || !remoteDir) {
    throw new HarnessError(
      'coding.config_invalid',
      'set both HARNESS_CODING_REPO and HARNESS_CODING_REMOTE, or neither',
    );
  }
  const timeout = env.HARNESS_CODING_TEST_TIMEOUT_MS;
  if (timeout !== undefined && !/^[1-9][0-9]{0,8}$/.test(timeout)) {
    throw new HarnessError(
      'coding.config_invalid',
      'HARNESS_CODING_TEST_TIMEOUT_MS must be a positive integer (ms)',
    );
  }
  return { repoDir, remoteDir, ...(timeout ? { pipelineTimeoutMs: Number(timeout) } : {}) };
}
