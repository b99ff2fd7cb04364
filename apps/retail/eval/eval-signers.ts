import { generateDecisionKey, type DecisionKey, type PrincipalRegistry } from '../../../src/index.js';

/** The approver that relays the customer's answer when a confirmation is an approval wait. */
export const RETAIL_EVAL_APPROVER = 'retail-eval-approver@harness';

/**
 * Who decides in a retail evaluation: one customer key per benchmark user (signs the run's start and
 * the customer's own confirmations), an approver (relays the customer's answer at a confirmation the
 * policy made an approval wait, without a `confirm.user.*` obligation), and the registry the worker trusts.
 */
export interface RetailEvalSigners {
  readonly registry: PrincipalRegistry;
  /** The customer key of a benchmark user id. */
  readonly customers: ReadonlyMap<string, DecisionKey>;
  readonly approver: DecisionKey;
}

/** Fresh customer keys for `userIds` (kind `customer`, no roles) and a fresh approver key. */
export function retailEvalSigners(userIds: Iterable<string>): RetailEvalSigners {
  const customers = new Map<string, DecisionKey>();
  const approver = generateDecisionKey({
    principal: RETAIL_EVAL_APPROVER,
    keyId: 'retail-eval-approver',
    kind: 'operator',
    roles: ['approver', 'operator'],
  });
  const principals = [approver.principal];
  for (const id of new Set(userIds)) {
    const { key, principal } = generateDecisionKey({
      principal: id,
      keyId: `${id.replace(/[^A-Za-z0-9._-]/g, '-')}-reval`,
      kind: 'customer',
      roles: [],
    });
    customers.set(id, key);
    principals.push(principal);
  }
  return { registry: { version: 1, principals }, customers, approver: approver.key };
}
