import {
  createGoalProfile,
  RestrictionPolicy,
  type AgentRunDefinition,
} from '../../../src/workflows/index.js';
import { MCP_FILES_PATH_FIELDS } from '../../../apps/mcp-files/workflow/mcp-files-mapping.js';

const TOOLS = ['fs.read', 'git.commit'];

/**
 * Test only: `taint.files_git@v1`, a goal that reads workspace files (the MCP filesystem app) and
 * commits in a git repository (the coding app), to show that a secret read from a file cannot leave
 * through a commit message without a person (docs/guardrails.md, "Data read from tools").
 */
const taintFilesGitProfile = createGoalProfile({
  name: 'taint.files_git',
  version: 'v1',
  instructions: 'Read workspace files with fs.read and commit repository changes with git.commit.',
  tools: TOOLS,
  policies: { default: 'taint.files_git@v1' },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
});

/** Test only: both tools allowed, paths confined to the workspace; it asks nobody by itself. */
const taintFilesGitPolicy = new RestrictionPolicy({
  name: 'taint.files_git',
  version: 'v1',
  allowedTools: TOOLS,
  allowedEffects: ['read', 'write'],
  pathFields: { 'fs.read': MCP_FILES_PATH_FIELDS['fs.read'] ?? ['/path'] },
  allowedRoots: ['.'],
});

export const taintFilesGitDefinition: AgentRunDefinition = {
  profiles: [taintFilesGitProfile],
  policies: [taintFilesGitPolicy],
};
