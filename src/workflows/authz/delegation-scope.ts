import type { Delegation, Principal } from '../../contract/principals.js';
import type { DecisionClaims } from './decision-token.js';
import type { PrincipalDirectory } from './principal-directory.js';

type Delegated = { ok: true; principal: Principal } | { ok: false; code: string; message: string };

const OTHER_TENANT = 'the decision was authenticated in another tenant than the run';
const wrongTenant = (message: string): Delegated => ({ ok: false, code: 'decision.wrong_tenant', message });

/** Does `principal` decide in `tenant` (undefined: a run without a tenant)? */
export function servesTenant(principal: Principal, tenant: string | undefined): boolean {
  if (principal.tenants === undefined) return true;
  return tenant !== undefined && principal.tenants.includes(tenant);
}

/**
 * The person a delegated token decides for, bounded by the delegation (`agent-run-trust-scope-v1`,
 * docs/authorization.md "Delegates"):
 * - the signer must be a `service` with a delegation for the vouched kind (`decision.not_a_delegate`);
 * - the run must have a tenant and the token must name it (`decision.wrong_tenant`): a delegate
 *   authenticates people in a tenant, and a run without one is no tenant's;
 * - a principal the registry lists under that id is the person only when it decides in that tenant;
 *   then it must have the vouched kind (`decision.kind_mismatch`) and keeps only the roles it has,
 *   the delegate vouched for and the delegation allows; anyone else gets the vouched roles the
 *   delegation allows.
 * Pure; never throws.
 */
export function scopedDelegatedPrincipal(
  obo: NonNullable<DecisionClaims['obo']>,
  signer: Principal,
  directory: PrincipalDirectory,
  runTenant: string | undefined,
): Delegated {
  const delegation = delegationFor(obo, signer);
  if ('code' in delegation) return delegation;
  if (runTenant === undefined)
    return wrongTenant('a run without a tenant takes no decision a delegate signed');
  if (obo.ten !== runTenant || !servesTenant(signer, runTenant)) return wrongTenant(OTHER_TENANT);
  const vouched = obo.roles.filter((r) => delegation.roles.includes(r));
  const listed = directory.principal(obo.sub);
  const known = listed !== undefined && servesTenant(listed, runTenant) ? listed : undefined;
  if (known === undefined)
    return { ok: true, principal: { id: obo.sub, kind: obo.kind, roles: vouched, keys: [] } };
  if (known.kind === 'service')
    return { ok: false, code: 'decision.not_a_delegate', message: 'a delegate decides for people only' };
  if (known.kind !== obo.kind)
    return {
      ok: false,
      code: 'decision.kind_mismatch',
      message: `the delegate vouches for a ${obo.kind}; the registry lists ${known.id} as a ${known.kind}`,
    };
  return { ok: true, principal: { ...known, roles: known.roles.filter((r) => vouched.includes(r)) } };
}

/** The signer's delegation when it covers the vouched kind, else the refusal. */
function delegationFor(
  obo: NonNullable<DecisionClaims['obo']>,
  signer: Principal,
): Delegation | { ok: false; code: string; message: string } {
  const delegation = signer.kind === 'service' ? signer.delegation : undefined;
  if (delegation === undefined)
    return { ok: false, code: 'decision.not_a_delegate', message: `${signer.id} may not decide for others` };
  if (!delegation.kinds.includes(obo.kind))
    return {
      ok: false,
      code: 'decision.not_a_delegate',
      message: `${signer.id} may not decide for a ${obo.kind}`,
    };
  return delegation;
}

/**
 * The older rule, for runs started before `agent-run-trust-scope-v1` (replayed unchanged): the person a
 * delegated token decides for. The signer must be a `service` with a delegation for the
 * claimed kind; the tenant it names must be the run's. A principal the registry lists keeps its own
 * kind and roles (the registry is the source of truth for who it knows); anyone else gets the roles
 * the delegate vouches for that its delegation allows.
 */
export function delegatedPrincipal(
  obo: NonNullable<DecisionClaims['obo']>,
  signer: Principal,
  directory: PrincipalDirectory,
  runTenant: string | undefined,
): Delegated {
  const delegation = delegationFor(obo, signer);
  if ('code' in delegation) return delegation;
  if (runTenant !== undefined && obo.ten !== runTenant) return wrongTenant(OTHER_TENANT);
  const known = directory.principal(obo.sub);
  if (known !== undefined) {
    if (known.kind === 'service')
      return { ok: false, code: 'decision.not_a_delegate', message: 'a delegate decides for people only' };
    return { ok: true, principal: known };
  }
  return {
    ok: true,
    principal: {
      id: obo.sub,
      kind: obo.kind,
      roles: obo.roles.filter((r) => delegation.roles.includes(r)),
      keys: [],
    },
  };
}
