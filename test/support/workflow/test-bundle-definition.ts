import { combineDefinitions } from '../../../src/core/index.js';
import { benchBundleDefinition } from '../../../bench/workflows/definition.js';
import { graphChecksDefinition } from './graph-checks.js';

/** What the tests' bundle serves: the bench's bundle (every example app, the bench) and the test-only graph. */
export const testBundleDefinition = combineDefinitions(benchBundleDefinition, graphChecksDefinition);
