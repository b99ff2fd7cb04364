import { DEFAULT_CLAIM_KINDS, type AgentRunDefinition } from '../../../src/workflows/index.js';

/**
 * The refund app's guardrail settings: the built-in claim kinds, with `refund.create` as the write that
 * stands for a "refunded" claim once an operator settled it and a later check verified its refund id.
 */
export const refundGuardrails: NonNullable<AgentRunDefinition['guardrails']> = {
  output: {
    claims: DEFAULT_CLAIM_KINDS.map((k) =>
      k.id === 'refund' ? { ...k, actionTools: ['refund.create'] } : k,
    ),
  },
};
