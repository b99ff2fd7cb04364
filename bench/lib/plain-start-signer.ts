import { decisionKeyFrom, type DecisionKeyFile } from '../../src/client/decisions/decision-key.js';
import type { StartSigner } from '../../src/client/decisions/sign-start.js';

/**
 * How the service-load bench's plain arm signs a start of `input`: with the service's delegate key, for
 * the input's user in its tenant, as the service signs its own starts (docs/authorization.md, "Who a run
 * is for"). Both arms then pay for a signed start.
 * @throws Error when the input names no user or no tenant.
 */
export function plainStartSigner(
  keyFile: DecisionKeyFile,
  input: { readonly userId?: string | undefined; readonly tenantId?: string | undefined },
): StartSigner {
  if (input.userId === undefined || input.tenantId === undefined)
    throw new Error('the plain arm starts runs for a user in a tenant');
  return {
    key: decisionKeyFrom(keyFile),
    onBehalfOf: { sub: input.userId, kind: 'customer', roles: ['requester'], ten: input.tenantId },
  };
}
