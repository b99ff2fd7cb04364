import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../../../src/contract/artifact.js';
import { checkOutput, type EvidenceInvocation } from '../../../../src/workflows/guardrails/index.js';

/** 4111111111111111 passes the Luhn check: as free text it reads as a card number. */
const NUMERIC_ORDER_ID = '4111111111111111';
/** 13912345678 reads as a Chinese mobile number. */
const PHONE_LIKE_ORDER_ID = '13912345678';

function observedOrder(id: string): { artifacts: Artifact[]; invocations: EvidenceInvocation[] } {
  return {
    artifacts: [
      {
        id: `run-1:1:order`,
        type: 'order',
        schemaVersion: '1',
        provenance: 'observed',
        data: { id, customerId: 'C1001', status: 'paid' },
      },
    ],
    invocations: [{ seq: 1, status: 'succeeded', artifactIds: ['run-1:1:order'] }],
  };
}

describe('output guardrail: ids of observed business objects are not personal data', () => {
  it('a numeric order id a trusted tool observed passes; the same number unobserved is blocked as a card', () => {
    const reply = { message: `Order ${NUMERIC_ORDER_ID} is not eligible for a refund yet.` };
    const observed = checkOutput({ output: reply, ...observedOrder(NUMERIC_ORDER_ID) });
    expect(observed.reasonCodes).not.toContain('guardrail.output.restricted_data');
    expect(observed.verdict).toBe('pass');
    const unobserved = checkOutput({ output: reply, ...observedOrder('ORD-1001') });
    expect(unobserved).toMatchObject({ verdict: 'block' });
    expect(unobserved.reasonCodes).toContain('guardrail.output.restricted_data');
  });

  it('a phone-like order id is not masked, while a real phone in the same reply still is', () => {
    const reply = {
      message: `Order ${PHONE_LIKE_ORDER_ID} is on its way; we will text 13800001001 when it arrives.`,
    };
    const result = checkOutput({
      output: reply,
      ...observedOrder(PHONE_LIKE_ORDER_ID),
      obligations: ['mask.phone'],
    });
    expect(result.output).toEqual({
      message: `Order ${PHONE_LIKE_ORDER_ID} is on its way; we will text 138****1001 when it arrives.`,
    });
    // without the observation both are masked
    const plain = checkOutput({ output: reply, artifacts: [], invocations: [], obligations: ['mask.phone'] });
    expect((plain.output as { message: string }).message).toContain('139****5678');
  });

  it('model artifacts never make an id trusted', () => {
    const reply = { message: `Order ${NUMERIC_ORDER_ID} is not eligible.` };
    const forged = observedOrder(NUMERIC_ORDER_ID);
    forged.artifacts[0] = { ...forged.artifacts[0]!, provenance: 'model' };
    expect(checkOutput({ output: reply, ...forged }).reasonCodes).toContain(
      'guardrail.output.restricted_data',
    );
  });
});
