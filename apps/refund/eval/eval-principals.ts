import { generateDecisionKey, type DecisionKey, type PrincipalRegistry } from '../../../src/index.js';

/** Who decides in an evaluation: two refund approvers (four-eyes) and the case's customer. */
export interface EvalSigners {
  readonly registry: PrincipalRegistry;
  /** Approvers in turn: the n-th approval of a case is signed by `approvers[n % 2]`. */
  readonly approvers: readonly [DecisionKey, DecisionKey];
  readonly customer: DecisionKey | undefined;
}

function signer(principal: string, kind: 'operator' | 'customer') {
  const { key, principal: entry } = generateDecisionKey({
    principal,
    keyId: `${principal.replace(/[^A-Za-z0-9._-]/g, '-')}-eval`,
    kind,
    roles: kind === 'customer' ? [] : ['approver', 'refund_approver', 'operator'],
  });
  return { key, entry };
}

/** Fresh keys for one case and the registry its worker trusts. */
export function evalSigners(customerId: string | undefined): EvalSigners {
  const a = signer('eval-approver-1@harness', 'operator');
  const b = signer('eval-approver-2@harness', 'operator');
  const c = customerId === undefined ? undefined : signer(customerId, 'customer');
  return {
    registry: { version: 1, principals: [a.entry, b.entry, ...(c ? [c.entry] : [])] },
    approvers: [a.key, b.key],
    customer: c?.key,
  };
}
