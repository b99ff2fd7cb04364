import type { AgentRunDefinition } from '../../../src/workflows/index.js';
import { benchFastStepsProfile, benchStepsProfile } from './bench-profile.js';

/** The benchmark's workflow-side composition: the N-step profiles the bench drives, regular and fast (with the showcase's policies). */
export const benchDefinition: AgentRunDefinition = {
  profiles: [benchStepsProfile, benchFastStepsProfile],
  // allow_all@v1 comes with the refund app's definition, which the bench bundle combines it with.
  policies: [],
};
