import { describe, expect, it } from 'vitest';
import { solutionDelivered } from '../../../../src/workflows/completion/solution-delivered.js';
import { input } from './evidence-fixtures.js';

describe('solution_delivered/v1', () => {
  it.each(['The answer is 42.', ['item'], { report: 'x' }, 0, false])(
    'passes for the non-empty output %j',
    (output) => {
      expect(solutionDelivered.evaluate(input([], [], {}, output))).toEqual({
        evaluator: 'solution_delivered/v1',
        passed: true,
        reasonCodes: ['completion.output_delivered'],
        evidenceArtifactIds: [],
        summary: 'a final output was delivered',
      });
    },
  );

  it.each([undefined, null, '', '  \n\t', [], {}])('fails for the empty output %j', (output) => {
    expect(
      solutionDelivered.evaluate({ finalOutput: output, artifacts: [], invocations: [], params: {} }),
    ).toMatchObject({
      passed: false,
      reasonCodes: ['completion.no_final_output'],
    });
  });

  it('takes no params', () => {
    expect(solutionDelivered.evaluate(input([], [], { minLength: 3 })).reasonCodes).toEqual([
      'completion.params_invalid',
    ]);
  });
});
