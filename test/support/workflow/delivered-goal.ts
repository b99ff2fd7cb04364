import { createGoalProfile, type AgentRunDefinition } from '../../../src/workflows/index.js';

/**
 * Test only: `delivered.goal@v1`, a goal profile that refunds an order (under allow_all@v1: no
 * approval) and composes its own answer when a budget ends the run after the refund took effect
 * (`deliveredAnswer`, docs/runner.md "Delivered outcome").
 */
const deliveredGoalProfile = createGoalProfile({
  name: 'delivered.goal',
  version: 'v1',
  instructions: 'Refund the order with refund.create, then verify it with refund.verify.',
  tools: ['order.read', 'refund.create', 'refund.verify'],
  policies: { default: 'allow_all@v1' },
  completion: {
    evaluator: { name: 'action_with_verification', version: 'v1' },
    params: { actionTool: 'refund.create', actionType: 'refund', verificationType: 'refund.verification' },
  },
  deliveredAnswer: ({ reason, writes }) => ({
    outcome: 'refund_recorded_unverified',
    references: writes.map((w) => w.externalId ?? null),
    message: `Your refund was recorded (reference ${writes.map((w) => w.externalId ?? 'unknown').join(', ')}); it is not verified yet (${reason.code}).`,
  }),
});

/** Test only: the goal profile's delivered answer on the dev server. */
export const deliveredGoalDefinition: AgentRunDefinition = {
  profiles: [deliveredGoalProfile],
  policies: [],
};
