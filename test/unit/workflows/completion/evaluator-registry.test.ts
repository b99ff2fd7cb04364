import { describe, expect, it } from 'vitest';
import type { CompletionInput } from '../../../../src/workflows/completion/completion.js';
import { evaluatorFromFunction } from '../../../../src/workflows/completion/define-evaluator.js';
import {
  createDefaultEvaluatorRegistry,
  EvaluatorRegistry,
} from '../../../../src/workflows/completion/evaluator-registry.js';
import { isHarnessError } from '../../../../src/contract/errors.js';
import { z } from 'zod';
import { input } from './evidence-fixtures.js';

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

const withoutParams = (i: CompletionInput) => ({
  finalOutput: i.finalOutput,
  artifacts: i.artifacts,
  invocations: i.invocations,
});

describe('EvaluatorRegistry', () => {
  it('holds the four default evaluators at v1', () => {
    expect(
      createDefaultEvaluatorRegistry()
        .list()
        .map((e) => `${e.name}/${e.version}`),
    ).toEqual([
      'action_with_verification/v1',
      'observed_remote_branch/v1',
      'pipeline_verification/v1',
      'solution_delivered/v1',
    ]);
  });

  it('registers a custom evaluator from a function and evaluates it with the contract params', () => {
    const registry = createDefaultEvaluatorRegistry();
    const seen: unknown[] = [];
    registry.register(
      evaluatorFromFunction(
        'word_count',
        'v1',
        (i) => {
          seen.push(i.params);
          const words = typeof i.finalOutput === 'string' ? i.finalOutput.split(/\s+/).length : 0;
          const ok = words >= (i.params.min as number);
          return {
            passed: ok,
            reasonCodes: [ok ? 'custom.enough_words' : 'custom.too_short'],
            evidenceArtifactIds: [],
            summary: `${words} words`,
          };
        },
        z.object({ min: z.number().int() }).strict(),
      ),
    );
    const verdict = registry.evaluateContract(
      { evaluator: { name: 'word_count', version: 'v1' }, params: { min: 3 } },
      withoutParams(input([], [], { min: 0 }, 'one two three')),
    );
    expect(verdict).toEqual({
      evaluator: 'word_count/v1',
      passed: true,
      reasonCodes: ['custom.enough_words'],
      evidenceArtifactIds: [],
      summary: '3 words',
    });
    expect(seen).toEqual([{ min: 3 }]);
    expect(
      registry.evaluateContract(
        { evaluator: { name: 'word_count', version: 'v1' } },
        withoutParams(input([], [])),
      ).reasonCodes,
    ).toEqual(['completion.params_invalid']);
  });

  it('turns a throwing or malformed custom evaluator into a failing verdict', () => {
    const boom = evaluatorFromFunction('boom', 'v1', () => {
      throw new Error('x');
    });
    expect(boom.evaluate(input([], []))).toMatchObject({
      evaluator: 'boom/v1',
      passed: false,
      reasonCodes: ['completion.evaluator_error'],
    });
    const liar = evaluatorFromFunction('liar', 'v1', () => ({ passed: 'yes' }) as never);
    expect(liar.evaluate(input([], [])).reasonCodes).toEqual(['completion.evaluator_error']);
    const noCode = evaluatorFromFunction('nocode', 'v1', () => ({
      passed: true,
      reasonCodes: [],
      evidenceArtifactIds: [],
      summary: '',
    }));
    expect(noCode.evaluate(input([], [])).passed).toBe(false);
  });

  it('refuses conflicts, unknown evaluators and bad names', () => {
    const registry = createDefaultEvaluatorRegistry();
    const dup = evaluatorFromFunction('solution_delivered', 'v1', () => ({
      passed: true,
      reasonCodes: ['x.y'],
      evidenceArtifactIds: [],
      summary: '',
    }));
    expect(
      isHarnessError(
        thrownBy(() => registry.register(dup)),
        'registry.conflict',
      ),
    ).toBe(true);
    expect(registry.get('solution_delivered', 'v1').evaluate(input([], [], {}, '')).passed).toBe(false);
    expect(
      isHarnessError(
        thrownBy(() => registry.get('solution_delivered', 'v2')),
        'registry.not_found',
      ),
    ).toBe(true);
    const evaluate = () =>
      registry.evaluateContract(
        { evaluator: { name: 'made_up', version: 'v1' } },
        withoutParams(input([], [])),
      );
    expect(isHarnessError(thrownBy(evaluate), 'registry.not_found')).toBe(true);
    const fn = () => ({ passed: true, reasonCodes: ['x.y'], evidenceArtifactIds: [], summary: '' });
    expect(
      isHarnessError(
        thrownBy(() => new EvaluatorRegistry().register(evaluatorFromFunction('Bad Name', 'v1', fn))),
        'registry.invalid_name',
      ),
    ).toBe(true);
    expect(
      isHarnessError(
        thrownBy(() => new EvaluatorRegistry().register(evaluatorFromFunction('ok', '1.0', fn))),
        'registry.invalid_version',
      ),
    ).toBe(true);
  });

  it('checks contracts at composition time', () => {
    const registry = createDefaultEvaluatorRegistry();
    registry.checkContract({
      evaluator: { name: 'action_with_verification', version: 'v1' },
      params: { actionTool: 'refund.create' },
    });
    expect(
      isHarnessError(
        thrownBy(() =>
          registry.checkContract({
            evaluator: { name: 'action_with_verification', version: 'v1' },
            params: { actionTool: 1 },
          }),
        ),
        'completion.params_invalid',
      ),
    ).toBe(true);
    expect(
      isHarnessError(
        thrownBy(() => registry.checkContract({ evaluator: { name: 'nope', version: 'v1' } })),
        'registry.not_found',
      ),
    ).toBe(true);
    expect(
      isHarnessError(
        thrownBy(() => registry.checkContract({ evaluator: { name: '', version: 'v1' } })),
        'completion.contract_invalid',
      ),
    ).toBe(true);
  });
});
