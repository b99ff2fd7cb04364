// A TEST-ONLY stand-in of the retail app's workflows module (the real routed profile `retail.agent@v2`
// is written elsewhere): a goal profile under that name whose system instructions are one step marker,
// so the gold model makes that step's calls through the real tool pipeline; and `retail.policy@v2`
// allowing reads, and writes behind the customer's confirmation. It checks the evaluation's plumbing
// (per-run databases, signed customer decisions, digests, the report), not the retail protocol.
import { createGoalProfile, defineAgentRun, RulesPolicy } from '../../../src/workflows/index.js';
import { RETAIL_TOOLS } from '../../../apps/retail/workflow/retail-tool-names.js';

/** The step the stand-in asks for: task 88's only gold action. */
export const STANDIN_STEP =
  '[step: s1] [domain: cancel_pending_order] cancel_pending_order {"order_id":"#W8835847","reason":"ordered by mistake"}';

const profile = createGoalProfile({
  name: 'retail.agent',
  version: 'v2',
  instructions: STANDIN_STEP,
  tools: Object.values(RETAIL_TOOLS),
  policies: { default: 'retail.policy@v2', allowed: [] },
  completion: { evaluator: { name: 'solution_delivered', version: 'v1' } },
});

const policy = RulesPolicy.onFirstUse({
  name: 'retail.policy',
  version: 'v2',
  customReasonCodes: ['retail.write_confirmed', 'retail.read_allowed'],
  rules: [
    {
      id: 'writes',
      when: { effect: 'write' },
      decision: 'allow',
      reasonCodes: ['retail.write_confirmed'],
      obligations: ['confirm.user.v1'],
    },
    { id: 'reads', when: { effect: 'read' }, decision: 'allow', reasonCodes: ['retail.read_allowed'] },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

export const agentRun = defineAgentRun({ profiles: [profile], policies: [policy] });
