import type { CompletionEvaluator } from '../../../src/workflows/index.js';
import {
  actionWithVerification,
  createGraphProfile,
  evaluatorFromFunction,
  type GraphDefinition,
  solutionDelivered,
} from '../../../src/workflows/index.js';
import { refundDeliveredAnswer } from './refund-delivered.js';
import { refundNodes } from './refund-nodes.js';
import { initialRefundState, refundGraphStateSchema, type RefundGraphState } from './refund-state.js';

const ACTION_PARAMS = {
  actionTool: 'refund.create',
  actionType: 'refund',
  verificationType: 'refund.verification',
};

/**
 * `refund_outcome/v1`: a refund the run claims to have made needs `action_with_verification`
 * (an observed refund and a passed verification linked to it); a refusal or a declined confirmation
 * needs a delivered answer and no refund effect at all.
 */
export const refundOutcomeEvaluator: CompletionEvaluator = evaluatorFromFunction(
  'refund_outcome',
  'v1',
  (input) => {
    const output = input.finalOutput as { outcome?: string } | null;
    const wrote = input.invocations.some((i) => i.tool === 'refund.create' && i.status === 'succeeded');
    if (output?.outcome === 'refunded' || wrote) {
      const v = actionWithVerification.evaluate({ ...input, params: ACTION_PARAMS });
      return {
        passed: v.passed,
        reasonCodes: v.reasonCodes,
        evidenceArtifactIds: v.evidenceArtifactIds,
        summary: v.summary,
      };
    }
    const v = solutionDelivered.evaluate({ ...input, params: {} });
    return {
      passed: v.passed,
      reasonCodes: v.reasonCodes,
      evidenceArtifactIds: [],
      summary: `no refund made; ${v.summary}`,
    };
  },
);

export const REFUND_GRAPH: GraphDefinition<RefundGraphState> = {
  name: 'refund.graph',
  version: 'v1',
  start: 'normalize_input',
  terminal: ['compose_response'],
  nodes: refundNodes,
  tools: ['order.read', 'logistics.read', 'policy.search.refund', 'refund.create', 'refund.verify'],
  // The refund rules by default; read_only (no refund at all) may be chosen, nothing looser.
  policies: { default: 'refund.rules@v1', allowed: ['read_only@v1'] },
  completion: { evaluator: { name: 'refund_outcome', version: 'v1' } },
  deliveredAnswer: refundDeliveredAnswer,
  initialState: initialRefundState,
  // Read when the graph profile is built (on first use), not when this module is evaluated.
  get stateSchema() {
    return refundGraphStateSchema();
  },
  conditions: {
    is_refund: (s) => s.intent === 'refund',
    slots_complete: (s) => s.orderId !== null && s.customerId !== null,
    owner_verified: (s) => s.order !== null && s.order.customerId === s.customerId,
    eligible: (s) => s.decision?.eligible === true,
    confirmation_granted: (s) => s.confirmation_granted === true,
    confirmation_denied: (s) => s.confirmation_granted === false,
  },
  edges: [
    { from: 'normalize_input', to: 'identify_intent' },
    { from: 'identify_intent', to: 'collect_required_slots', when: 'is_refund' },
    { from: 'identify_intent', to: 'compose_response' },
    { from: 'collect_required_slots', to: 'query_order', when: 'slots_complete' },
    // Refused (an anonymous or mismatched requester): straight to the answer.
    { from: 'collect_required_slots', to: 'compose_response' },
    { from: 'query_order', to: 'verify_order_ownership' },
    { from: 'query_order', to: 'compose_response' },
    { from: 'verify_order_ownership', to: 'query_logistics', when: 'owner_verified' },
    { from: 'verify_order_ownership', to: 'compose_response' },
    { from: 'query_logistics', to: 'retrieve_effective_policy' },
    { from: 'query_logistics', to: 'compose_response' },
    { from: 'retrieve_effective_policy', to: 'decide_eligibility' },
    { from: 'retrieve_effective_policy', to: 'compose_response' },
    { from: 'decide_eligibility', to: 'verify_decision', when: 'eligible' },
    { from: 'decide_eligibility', to: 'compose_response' },
    { from: 'verify_decision', to: 'request_confirmation', when: 'eligible' },
    { from: 'verify_decision', to: 'compose_response' },
    { from: 'request_confirmation', to: 'create_refund', when: 'confirmation_granted' },
    { from: 'request_confirmation', to: 'compose_response', when: 'confirmation_denied' },
    { from: 'create_refund', to: 'reconcile_refund_state' },
    { from: 'create_refund', to: 'compose_response' },
    { from: 'reconcile_refund_state', to: 'compose_response' },
  ],
};

/**
 * The refund reference graph as a graph profile. Built on first use (createGraphProfile): the graph is
 * checked and its state schema built when the profile is first checked or run.
 */
export const refundGraphProfile = createGraphProfile(REFUND_GRAPH);
