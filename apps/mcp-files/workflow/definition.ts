import type { AgentRunDefinition } from '../../../src/workflows/index.js';
import { mcpFilesProfile, mcpFilesRootPolicy } from './mcp-files-profile.js';

/** The MCP filesystem app's workflow-side composition: its profile and its root-confining policy. */
export const mcpFilesDefinition: AgentRunDefinition = {
  profiles: [mcpFilesProfile],
  policies: [mcpFilesRootPolicy],
};
