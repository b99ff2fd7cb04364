/**
 * A workflow that uses the policy engine, completion evaluators and NamedRegistry, bundled by
 * sandbox-bundle.test.ts with Temporal's workflow bundler (which refuses Node builtins).
 */
import { createDefaultEvaluatorRegistry } from '../../../../../src/workflows/completion/index.js';
import {
  authorizeDispatch,
  composePolicies,
  RestrictionPolicy,
  RulesPolicy,
} from '../../../../../src/workflows/policy/index.js';

export function policySandboxCheck(now: string): Promise<string> {
  const rules = new RulesPolicy({
    name: 'p',
    version: 'v1',
    rules: [{ id: 'a', when: {}, decision: 'allow', expiresInSeconds: 5 }],
    default: { decision: 'deny' },
  });
  const policy = composePolicies('bundle', 'v1', [rules, new RestrictionPolicy({ allowedRoots: ['a'] })]);
  const definition = {
    name: 'a.b',
    version: 'v1',
    description: 'x',
    parameters: {},
    effect: 'read' as const,
  };
  const verdict = createDefaultEvaluatorRegistry().evaluateContract(
    { evaluator: { name: 'solution_delivered', version: 'v1' } },
    { finalOutput: 'done', artifacts: [], invocations: [] },
  );
  const paths = new RestrictionPolicy({ pathFields: { 'a.b': ['/p'] }, allowedRoots: ['a'] });
  const pathCodes = ['a/x', 'a/../b', '../x', '/x', 'a/\uFF0E\uFF0E', 'a/e\u0301', 'a/\u200b'].map(
    (p) => authorizeDispatch(paths, definition, { p }, now).reasonCodes[0],
  );
  return Promise.resolve(
    JSON.stringify([authorizeDispatch(policy, definition, {}, now), verdict, pathCodes]),
  );
}
