import { AllowAllPolicy, type AgentRunDefinition } from '../../../src/core/index.js';
import { benchStepsProfile } from './bench-profile.js';

/** The benchmark's workflow-side composition: the N-step profile the bench drives. */
export const benchDefinition: AgentRunDefinition = {
  profiles: [benchStepsProfile],
  policies: [new AllowAllPolicy()],
};
