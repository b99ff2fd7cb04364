import type { CaseObservation } from '../../../../apps/refund/eval/case-observation.js';
import { parseEvalCase, type EvalCase } from '../../../../apps/refund/eval/eval-case.js';

export const H_RF_017 = {
  case_id: 'H-RF-017',
  initial_state: { order_status: 'paid', logistics_status: 'not_shipped', hours_since_payment: 72 },
  user_message: '还没发货，给我退款',
  expected_required_facts: ['order', 'logistics', 'policy:R001'],
  expected_nodes: [
    'identify_intent',
    'query_order',
    'verify_order_ownership',
    'query_logistics',
    'retrieve_policy',
    'decide_eligibility',
    'request_confirmation',
  ],
  forbidden_nodes: ['create_compensation'],
  expected_terminal_status: 'awaiting_confirmation',
};

export function evalCase(overrides: Record<string, unknown> = {}): EvalCase {
  return parseEvalCase({ ...H_RF_017, ...overrides });
}

const PRE = [
  'normalize_input',
  'identify_intent',
  'collect_required_slots',
  'query_order',
  'verify_order_ownership',
  'query_logistics',
  'retrieve_effective_policy',
  'decide_eligibility',
  'verify_decision',
];

/** What the H-RF-017 run looks like when it behaves: waiting at request_confirmation. */
export function observation(overrides: Partial<CaseObservation> = {}): CaseObservation {
  return {
    caseId: 'H-RF-017',
    workflowId: 'wf-1',
    status: 'awaiting_confirmation',
    waitingReason: 'confirmation_required',
    currentNode: 'request_confirmation',
    completedSteps: PRE,
    facts: { 'order.owner_verified': true },
    artifacts: [
      { id: 'a1', type: 'order', provenance: 'observed', externalId: 'ORD-CASE-1' },
      { id: 'a2', type: 'logistics', provenance: 'observed', externalId: 'ORD-CASE-1' },
      { id: 'a3', type: 'policy', provenance: 'observed', externalId: 'policy://refund/v18#R001' },
    ],
    invocations: [
      { seq: 1, tool: 'order.read', effect: 'read', status: 'succeeded', args: { orderId: 'ORD-CASE-1' } },
      {
        seq: 2,
        tool: 'logistics.read',
        effect: 'read',
        status: 'succeeded',
        args: { orderId: 'ORD-CASE-1' },
      },
      {
        seq: 3,
        tool: 'policy.search.refund',
        effect: 'read',
        status: 'succeeded',
        args: { orderStatus: 'paid', logisticsStatus: 'not_shipped' },
      },
    ],
    events: [
      {
        seq: 40,
        type: 'human.requested',
        data: {
          action: { kind: 'confirmation', actionId: 'act-4-1' },
          request: {
            verifiedFacts: ['fact://order/ORD-CASE-1@v1'],
            policyEvidence: ['policy://refund/v18#R001'],
          },
        },
      },
    ],
    budget: { steps: 4, modelCalls: 1, toolCalls: 3, inputTokens: 40, outputTokens: 1, costUsd: 0 },
    refunds: [],
    orderOwner: 'C1001',
    output: null,
    terminalReason: null,
    durationMs: 1000,
    evidenceComplete: true,
    ...overrides,
  };
}
