import { describe, expect, inject, it } from 'vitest';
import { countModuleSchemas } from '../support/bundle-evaluation.js';

/**
 * The Temporal sandbox evaluates every module of the workflow bundle again for every run, so whatever
 * a module builds at its top level is CPU every run pays, used or not. Zod schemas were most of it
 * (1,569 built per run in the bench's bundle on 2026-12-03): they are now built on first use
 * (`z.lazy`, `builtOnFirstUse`), and what remains at module level is one small lazy wrapper per
 * exported schema (69 in the bench's bundle on 12-03; 121 in this test bundle with its own test workflows
 * on 12-05).
 * One module building a schema eagerly again (a run input is about 100) fails this. Bound stated in
 * docs/history-cost.md ("CPU per run"); raise it only with a reason written there.
 */
const MAX_SCHEMAS_ON_EVALUATION = 130;

describe('evaluating the workflow bundle (once per run in the sandbox)', () => {
  it('builds no more zod schemas than the bound: schemas are built on first use', () => {
    const evaluation = countModuleSchemas(inject('workflowBundlePath'));
    const top = evaluation.byModule
      .slice(0, 8)
      .map(([id, n]) => `${n} ${id}`)
      .join(', ');
    expect(evaluation.schemas, `largest: ${top}`).toBeLessThanOrEqual(MAX_SCHEMAS_ON_EVALUATION);
    // The counter counts: the bundle does build some (the lazy wrappers themselves).
    expect(evaluation.schemas).toBeGreaterThan(0);
  });
});
