import type { Principal } from '../../contract/principals.js';
import { jwsSegments, segmentJson, signatureVerifies, tokenTimeProblem } from './signed-token.js';
import type { PrincipalDirectory } from './principal-directory.js';
import { delegatedPrincipal, scopedDelegatedPrincipal, servesTenant } from './delegation-scope.js';
import {
  DECISION_TOKEN_TYPE,
  DecisionClaimsSchema,
  DecisionTokenHeaderSchema,
  MAX_TOKEN_LIFETIME_SECONDS,
  type DecisionClaims,
  type TokenDecision,
} from '../../contract/token-claims.js';

/**
 * Signed decision tokens (docs/authorization.md): a compact JWS (RFC 7515) signed with EdDSA over
 * Ed25519 (RFC 8037). Verified inside the workflow: verification is a pure function of the token, the
 * registry the run loaded (recorded in history) and the workflow clock, so it replays exactly.
 */

export {
  DECISION_TOKEN_TYPE,
  DecisionClaimsSchema,
  DecisionTokenHeaderSchema,
  MAX_TOKEN_LIFETIME_SECONDS,
  OnBehalfClaimSchema,
  TOKEN_DECISIONS,
  decisionPayloadDigest,
  type DecisionClaims,
  type TokenDecision,
} from '../../contract/token-claims.js';
export { MAX_CLOCK_SKEW_SECONDS } from './signed-token.js';

/** What a token must be bound to, from the run's side. */
export interface ExpectedDecision {
  readonly workflowId: string;
  readonly firstExecutionRunId: string;
  readonly actionId: string;
  readonly argsDigest: string | null;
  readonly decision: TokenDecision;
  readonly payloadDigest: string;
  /** The run's tenant: a delegated decision must name it. */
  readonly tenantId?: string;
  /**
   * Tenant and delegation scope (`agent-run-trust-scope-v1`): a delegated decision is bounded by its
   * delegation's kinds and roles whatever the registry says, a run without a tenant takes none, and a
   * principal limited to tenants decides only their runs.
   */
  readonly scoped?: boolean;
}

export type TokenCheck =
  | {
      readonly ok: true;
      /** Who decided: the signer, or for a delegated token the person it names. */
      readonly principal: Principal;
      readonly keyId: string;
      readonly claims: DecisionClaims;
      /** The delegate that signed on the principal's behalf. */
      readonly via?: string;
    }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly principal?: string };

function refuse(code: string, message: string, principal?: string): TokenCheck {
  return { ok: false, code, message, ...(principal !== undefined ? { principal } : {}) };
}

/**
 * Check a decision token against the registry, the clock and what it must be bound to. What the token
 * is bound to is compared first (cheap), then the signature, then everything that needs the verified
 * principal; a token is accepted only when all hold. Never throws: every refusal is a reason code.
 *
 * Codes: `decision.unsigned`, `decision.token_malformed`, `decision.unknown_key`,
 * `decision.bad_signature`, `decision.principal_mismatch`, `decision.key_retired`,
 * `decision.token_not_yet_valid`, `decision.token_expired`, `decision.token_lifetime`,
 * `decision.wrong_workflow`, `decision.wrong_run`, `decision.wrong_action`, `decision.wrong_arguments`,
 * `decision.wrong_decision`, `decision.payload_mismatch`, `decision.token_reused`, and for a
 * delegated token (`obo`) `decision.not_a_delegate`, `decision.wrong_tenant`.
 */
export function checkDecisionToken(
  token: string | undefined,
  directory: PrincipalDirectory,
  expected: ExpectedDecision,
  nowMs: number,
  used: (jti: string) => boolean,
): TokenCheck {
  if (token === undefined)
    return refuse('decision.unsigned', 'this run accepts signed decisions only (token)');
  const jws = jwsSegments(token);
  if (!jws) return refuse('decision.token_malformed', 'a token is three base64url segments');
  const header = DecisionTokenHeaderSchema.safeParse(segmentJson(jws.h));
  if (!header.success)
    return refuse('decision.token_malformed', `token header: not an EdDSA ${DECISION_TOKEN_TYPE}`);
  const claims = DecisionClaimsSchema.safeParse(segmentJson(jws.c));
  if (!claims.success) {
    const first = claims.error.issues[0];
    return refuse(
      'decision.token_malformed',
      `token claims: ${first?.path.join('.') || '(root)'}: ${first?.message}`,
    );
  }
  const key = directory.key(header.data.kid);
  if (!key) return refuse('decision.unknown_key', `key ${header.data.kid} is not in the principal registry`);
  // What the token is bound to first (cheap): a token for something else fails before any curve math.
  const t = claims.data;
  if (t.wf !== expected.workflowId)
    return refuse('decision.wrong_workflow', `the token is for workflow ${t.wf.slice(0, 200)}`);
  if (t.rid !== expected.firstExecutionRunId)
    return refuse('decision.wrong_run', 'the token is for an earlier or later run under this workflow id');
  if (t.act !== expected.actionId)
    return refuse('decision.wrong_action', `the token is for action ${t.act}, not ${expected.actionId}`);
  if (t.dig !== expected.argsDigest)
    return refuse('decision.wrong_arguments', 'the token is for other arguments than the pending action');
  if (t.dec !== expected.decision)
    return refuse('decision.wrong_decision', `the token decides ${t.dec}, not ${expected.decision}`);
  if (t.pd !== expected.payloadDigest)
    return refuse('decision.payload_mismatch', 'the payload is not the one the token signed');
  if (!signatureVerifies(jws, key))
    return refuse('decision.bad_signature', `the signature does not verify with key ${key.keyId}`);
  if (t.sub !== key.principal.id)
    return refuse(
      'decision.principal_mismatch',
      `key ${key.keyId} belongs to ${key.principal.id}, not ${t.sub}`,
    );
  const late = tokenTimeProblem(key, t, nowMs, MAX_TOKEN_LIFETIME_SECONDS);
  if (late) return refuse(`decision.${late.reason}`, late.message, t.sub);
  if (used(t.jti)) return refuse('decision.token_reused', `token ${t.jti} was already used`, t.sub);
  if (t.obo === undefined) {
    if (expected.scoped && !servesTenant(key.principal, expected.tenantId))
      return refuse('decision.wrong_tenant', `${t.sub} does not decide in this run's tenant`, t.sub);
    return { ok: true, principal: key.principal, keyId: key.keyId, claims: t };
  }
  const onBehalf = expected.scoped
    ? scopedDelegatedPrincipal(t.obo, key.principal, directory, expected.tenantId)
    : delegatedPrincipal(t.obo, key.principal, directory, expected.tenantId);
  if (!onBehalf.ok) return refuse(onBehalf.code, onBehalf.message, t.sub);
  return { ok: true, principal: onBehalf.principal, keyId: key.keyId, claims: t, via: key.principal.id };
}
