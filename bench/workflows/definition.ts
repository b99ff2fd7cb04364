import { combineDefinitions } from '../../src/workflows/index.js';
import { benchDefinition } from '../../apps/bench/workflow/definition.js';
import { showcaseDefinition } from '../../apps/showcase/workflow/definition.js';

/** What the bench's and the tests' bundle serve: every example app's profiles and the bench profile. */
export const benchBundleDefinition = combineDefinitions(showcaseDefinition, benchDefinition);
