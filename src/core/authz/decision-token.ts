import { ed25519 } from './ed25519.js';
import { z } from 'zod';
import {
  DELEGABLE_KINDS,
  KeyIdSchema,
  PrincipalIdSchema,
  RoleSchema,
  type Principal,
} from '../../contract/principals.js';
import { sha256Hex } from '../../contract/sha256.js';
import { canonicalJson } from '../tools/canonical-json.js';
import { asciiBytes, base64UrlDecode, base64UrlDecodeText } from './base64url.js';
import type { PrincipalDirectory } from './principal-directory.js';
import { scopedDelegatedPrincipal, servesTenant } from './delegation-scope.js';

/**
 * Signed decision tokens (docs/authorization.md): a compact JWS (RFC 7515) signed with EdDSA over
 * Ed25519 (RFC 8037). Verified inside the workflow: verification is a pure function of the token, the
 * registry the run loaded (recorded in history) and the workflow clock, so it replays exactly.
 */

/** The JWS `typ` of a decision token. */
export const DECISION_TOKEN_TYPE = 'harness-decision+jwt';
/** Longest a token may live (expiry minus issued-at). */
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;
/** How far in the future an issued-at may be (clock skew between signer and server). */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/** The decisions a token can carry. */
export const TOKEN_DECISIONS = ['approve', 'reject', 'confirm', 'reconcile', 'input', 'cancel'] as const;
export type TokenDecision = (typeof TOKEN_DECISIONS)[number];

/** A token's JWS header. Built on first use (see builtOnFirstUse). */
export const DecisionTokenHeaderSchema = z.lazy(() =>
  z.object({ alg: z.literal('EdDSA'), typ: z.literal(DECISION_TOKEN_TYPE), kid: KeyIdSchema }).strict(),
);

/** A token's claims. Built on first use (see builtOnFirstUse). */
export const DecisionClaimsSchema = z.lazy(() =>
  z
    .object({
      /** Workflow id of the run. */
      wf: z.string().min(1).max(400),
      /** The run's first execution run id: a later run that reuses the workflow id is another run. */
      rid: z.string().min(1).max(200),
      /** The action decided (`cancel` for a cancellation). */
      act: z.string().min(1).max(200),
      /** Argument digest of the action's tool call; null when the action has none. */
      dig: z
        .string()
        .regex(/^sha256:[0-9a-f]{64}$/)
        .nullable(),
      dec: z.enum(TOKEN_DECISIONS),
      /** Digest of the decision's payload without its token ({@link decisionPayloadDigest}). */
      pd: z.string().regex(/^sha256:[0-9a-f]{64}$/),
      sub: PrincipalIdSchema,
      iat: z.number().int().nonnegative(),
      exp: z.number().int().positive(),
      /** Unique token id: a token is accepted once. */
      jti: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
      /**
       * On behalf of: a delegate (a `service` principal with a delegation, e.g. the run service) names
       * the person it authenticated, their kind and roles, and the tenant it authenticated them in.
       */
      obo: z
        .object({
          sub: PrincipalIdSchema,
          kind: z.enum(DELEGABLE_KINDS),
          roles: z.array(RoleSchema).max(20),
          ten: z.string().min(1).max(200).optional(),
        })
        .strict()
        .optional(),
    })
    .strict(),
);
export type DecisionClaims = z.infer<typeof DecisionClaimsSchema>;

/** The digest a token binds the rest of the decision's payload with (its `token` field left out). */
export function decisionPayloadDigest(payload: Readonly<Record<string, unknown>>): string {
  const rest = Object.fromEntries(Object.entries(payload).filter(([k]) => k !== 'token'));
  return `sha256:${sha256Hex(canonicalJson(rest))}`;
}

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

function parseJson(segment: string): unknown {
  const text = base64UrlDecodeText(segment);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
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
  const parts = token.split('.');
  if (parts.length !== 3) return refuse('decision.token_malformed', 'a token is three base64url segments');
  const [h = '', c = '', s = ''] = parts;
  const header = DecisionTokenHeaderSchema.safeParse(parseJson(h));
  if (!header.success)
    return refuse('decision.token_malformed', `token header: not an EdDSA ${DECISION_TOKEN_TYPE}`);
  const claims = DecisionClaimsSchema.safeParse(parseJson(c));
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
  const signature = base64UrlDecode(s);
  let verified = false;
  if (signature?.length === 64) {
    try {
      verified = ed25519.verify(signature, asciiBytes(`${h}.${c}`), key.publicKey);
    } catch {
      verified = false;
    }
  }
  if (!verified)
    return refuse('decision.bad_signature', `the signature does not verify with key ${key.keyId}`);
  if (t.sub !== key.principal.id)
    return refuse(
      'decision.principal_mismatch',
      `key ${key.keyId} belongs to ${key.principal.id}, not ${t.sub}`,
    );
  const nowSeconds = Math.floor(nowMs / 1000);
  // Retired when the token says it was issued after notAfter, or when it is used after notAfter (an
  // issued-at is the signer's word).
  if (key.notAfterMs !== undefined && (t.iat * 1000 > key.notAfterMs || nowMs > key.notAfterMs))
    return refuse('decision.key_retired', `key ${key.keyId} is retired`, t.sub);
  if (t.iat > nowSeconds + MAX_CLOCK_SKEW_SECONDS)
    return refuse('decision.token_not_yet_valid', 'the token was issued in the future', t.sub);
  if (t.exp - t.iat > MAX_TOKEN_LIFETIME_SECONDS)
    return refuse('decision.token_lifetime', `a token lives at most ${MAX_TOKEN_LIFETIME_SECONDS} s`, t.sub);
  if (t.exp <= nowSeconds) return refuse('decision.token_expired', 'the token has expired', t.sub);
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

/**
 * The person a delegated token decides for. The signer must be a `service` with a delegation for the
 * claimed kind; the tenant it names must be the run's. A principal the registry lists keeps its own
 * kind and roles (the registry is the source of truth for who it knows); anyone else gets the roles
 * the delegate vouches for that its delegation allows.
 */
function delegatedPrincipal(
  obo: NonNullable<DecisionClaims['obo']>,
  signer: Principal,
  directory: PrincipalDirectory,
  runTenant: string | undefined,
): { ok: true; principal: Principal } | { ok: false; code: string; message: string } {
  const delegation = signer.kind === 'service' ? signer.delegation : undefined;
  if (delegation === undefined)
    return { ok: false, code: 'decision.not_a_delegate', message: `${signer.id} may not decide for others` };
  if (!delegation.kinds.includes(obo.kind))
    return {
      ok: false,
      code: 'decision.not_a_delegate',
      message: `${signer.id} may not decide for a ${obo.kind}`,
    };
  if (runTenant !== undefined && obo.ten !== runTenant)
    return {
      ok: false,
      code: 'decision.wrong_tenant',
      message: 'the decision was authenticated in another tenant than the run',
    };
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
