import type { AgentRunDefinition } from '../../../src/workflows/index.js';
import { codingPipelineProfile, codingPushProfile, codingToolsPolicy } from './coding-profiles.js';

/** The coding app's workflow-side composition: commit and push, and the pipeline profile (real git). */
export const codingDefinition: AgentRunDefinition = {
  profiles: [codingPushProfile, codingPipelineProfile],
  policies: [codingToolsPolicy],
};
