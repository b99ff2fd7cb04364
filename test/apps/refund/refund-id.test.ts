import { describe, expect, it } from 'vitest';
import { newRefundId } from '../../../apps/refund/business/refund-store.js';
import { checkOutput } from '../../../src/workflows/guardrails/index.js';

describe('refund ids', () => {
  it('never look like personal data to the output guardrail (no digits), and do not repeat', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newRefundId();
      expect(id).toMatch(/^RF-[A-HJ-NP-R]{20}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(2000);
    const sample = [...ids].slice(0, 200);
    const result = checkOutput({
      output: { message: `Refunds ${sample.join(', ')}.`, refundIds: sample },
      artifacts: [],
      invocations: [],
      obligations: ['mask.phone'],
    });
    expect(result.reasonCodes).not.toContain('guardrail.output.restricted_data');
    expect(result.reasonCodes).not.toContain('guardrail.output.masked');
    // the guardrail would flag a hex id with a card-like digit run: what the letters avoid
    const hexLike = checkOutput({
      output: { message: 'Your refund RF-4111111111111111AB00 is on its way.' },
      artifacts: [],
      invocations: [],
    });
    expect(hexLike.reasonCodes).toContain('guardrail.output.restricted_data');
  });
});
