import type { PolicyDecision } from '../../contract/policy-decision.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { obligationKind } from './obligations.js';

/**
 * The least gate a caller requires in front of a write (`ToolOptions.gate`, what a routed profile's
 * catalogue declares): `confirmation`, the customer's or a person's confirmation; `approval`, a
 * person's approval.
 */
export type GateFloor = 'confirmation' | 'approval';

/**
 * The decision a write runs under when its caller requires `floor`: the policy's, if it already asks
 * for that much, else raised to `require_confirmation` (a person confirms or approves before
 * dispatch, per the authorization rules). `confirmation` is met by `require_confirmation`,
 * `require_human`, or (in a run that checks signed decisions) a `confirm.user.*` obligation;
 * `approval` only by `require_confirmation` or `require_human`. A `deny`, a read, or no floor: the
 * decision unchanged. Pure; never throws.
 * @returns the decision, and whether it was raised.
 */
export function withGateFloor(
  decision: PolicyDecision,
  def: ToolDefinition,
  floor: GateFloor | undefined,
  signed: boolean,
): { readonly decision: PolicyDecision; readonly raised: boolean } {
  if (floor === undefined || def.effect !== 'write' || decision.decision !== 'allow')
    return { decision, raised: false };
  const customer = signed && decision.obligations.some((o) => obligationKind(o) === 'confirm_user');
  if (floor === 'confirmation' && customer) return { decision, raised: false };
  return { decision: { ...decision, decision: 'require_confirmation' }, raised: true };
}
