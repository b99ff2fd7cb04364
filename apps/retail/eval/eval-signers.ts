import { generateDecisionKey, type DecisionKey, type PrincipalRegistry } from '../../../src/index.js';

/** Who decides in a retail evaluation: one customer key per benchmark user, and the registry the worker trusts. */
export interface RetailEvalSigners {
  readonly registry: PrincipalRegistry;
  /** The customer key of a benchmark user id. */
  readonly customers: ReadonlyMap<string, DecisionKey>;
}

/** Fresh customer keys for `userIds` (kind `customer`, no roles): each signs its runs' starts and confirmations. */
export function retailEvalSigners(userIds: Iterable<string>): RetailEvalSigners {
  const customers = new Map<string, DecisionKey>();
  const principals = [];
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
  return { registry: { version: 1, principals }, customers };
}
