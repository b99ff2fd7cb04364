import { describe, expect, it } from 'vitest';
import * as harness from '../../../src/index.js';

describe('package entry point', () => {
  it('exports the public API of the issues (registry, policies, registries, profiles, client, store)', () => {
    for (const name of [
      'ToolRegistry',
      'AllowAllPolicy',
      'RestrictionPolicy',
      'RulesPolicy',
      'composePolicies',
      'EvaluatorRegistry',
      'NamedRegistry',
      'createDefaultEvaluatorRegistry',
      'createGoalProfile',
      'createGraphProfile',
      'reachableNodes',
      'connectMcpTools',
      'startAgentRun',
      'createHarnessWorker',
      'createHarnessClient',
      'tracingFromEnv',
      'createTracing',
      'otelTraceIdForRun',
      'openEvidenceStore',
      'HarnessError',
    ]) {
      expect(harness, name).toHaveProperty(name);
    }
    const registry = new harness.ToolRegistry();
    expect(() =>
      registry.register(
        {
          name: 'Bad',
          version: 'v1',
          description: 'x',
          parameters: { type: 'object', properties: {}, additionalProperties: false },
          effect: 'read',
        },
        { execute: () => Promise.resolve({ output: {} }) },
      ),
    ).toThrow(expect.objectContaining({ code: 'registry.invalid_name' }));
  });
});
