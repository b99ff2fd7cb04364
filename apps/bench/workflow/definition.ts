import type { AgentRunDefinition } from '../../../src/workflows/index.js';
import { benchStepsProfile } from './bench-profile.js';

/** The benchmark's workflow-side composition: the N-step profile the bench drives (with the showcase's policies). */
export const benchDefinition: AgentRunDefinition = {
  profiles: [benchStepsProfile],
  // allow_all@v1 comes with the refund app's definition, which the bench bundle combines it with.
  policies: [],
};
