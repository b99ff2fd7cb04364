import { z } from 'zod';
import { DELEGABLE_KINDS, KeyIdSchema, PrincipalIdSchema, RoleSchema } from '../../contract/principals.js';
import type { PrincipalKind } from '../../contract/principals.js';
import { jwsSegments, segmentJson, signatureVerifies, tokenTimeProblem } from './signed-token.js';
import { scopedDelegatedPrincipal, servesTenant } from './delegation-scope.js';
import type { PrincipalDirectory } from './principal-directory.js';
import {
  MAX_START_TOKEN_LIFETIME_SECONDS,
  START_TOKEN_TYPE,
  StartClaimsSchema,
} from '../../contract/token-claims.js';

/**
 * Signed starts (docs/authorization.md, "Who a run is for"): who a run is for is a verified fact from
 * a token, never a field the starter types. A start token is a compact JWS (EdDSA over Ed25519, the
 * same keys and registry as decisions) bound to the workflow id and the digest of the run's input
 * without the token. Verified inside the workflow against the registry its start loaded (recorded in
 * history) and the workflow clock, so it replays exactly.
 */

export {
  MAX_START_TOKEN_LIFETIME_SECONDS,
  START_TOKEN_TYPE,
  StartClaimsSchema,
  startInputDigest,
  type StartClaims,
} from '../../contract/token-claims.js';

const HeaderSchema = z.lazy(() =>
  z.object({ alg: z.literal('EdDSA'), typ: z.literal(START_TOKEN_TYPE), kid: KeyIdSchema }).strict(),
);

/** Who a run is for: verified from its start token, or anonymous (an unsigned start). */
export type RunIdentity =
  | {
      readonly verified: true;
      readonly userId: string;
      readonly kind: Exclude<PrincipalKind, 'service'>;
      readonly roles: readonly string[];
      readonly tenantId?: string;
      /** The key that signed the start. */
      readonly keyId: string;
      /** The delegate (the run service) that signed for the person. */
      readonly via?: string;
    }
  | { readonly verified: false };

/** The identity of an unsigned start. */
export const ANONYMOUS: RunIdentity = { verified: false };

/** What the run's side knows when it checks a start token. */
export interface ExpectedStart {
  readonly workflowId: string;
  /** {@link startInputDigest} of the input the run received. */
  readonly inputDigest: string;
  /** The input's claimed tenant and user: a verified start must agree with them. */
  readonly tenantId?: string | undefined;
  readonly userId?: string | undefined;
}

export type StartCheck =
  | { readonly ok: true; readonly identity: Extract<RunIdentity, { verified: true }> }
  | { readonly ok: false; readonly code: string; readonly message: string };

const refuse = (code: string, message: string): StartCheck => ({ ok: false, code, message });

/**
 * Verify a start token. The signer is the requester (a registered person; a principal limited to
 * tenants starts only in them), or a delegate with a delegation naming the person in the run's tenant
 * (bounded as for decisions, see `scopedDelegatedPrincipal`). The input's `userId` and `tenantId`, when
 * given, must be the verified ones. Never throws: every refusal is a reason code
 * (`start.token_malformed`, `start.unknown_key`, `start.wrong_workflow`, `start.input_mismatch`,
 * `start.bad_signature`, `start.principal_mismatch`, `start.key_retired`, `start.token_not_yet_valid`,
 * `start.token_lifetime`, `start.token_expired`, `start.not_a_person`, `start.identity_mismatch`,
 * `start.wrong_tenant`, and the delegation codes `decision.not_a_delegate`, `decision.wrong_tenant`,
 * `decision.kind_mismatch`).
 */
export function verifyStartToken(
  token: string,
  directory: PrincipalDirectory,
  expected: ExpectedStart,
  nowMs: number,
): StartCheck {
  const jws = jwsSegments(token);
  if (!jws) return refuse('start.token_malformed', 'a token is three base64url segments');
  const header = HeaderSchema.safeParse(segmentJson(jws.h));
  if (!header.success)
    return refuse('start.token_malformed', `token header: not an EdDSA ${START_TOKEN_TYPE}`);
  const claims = StartClaimsSchema.safeParse(segmentJson(jws.c));
  if (!claims.success) return refuse('start.token_malformed', 'token claims do not match the start claims');
  const key = directory.key(header.data.kid);
  if (!key) return refuse('start.unknown_key', `key ${header.data.kid} is not in the principal registry`);
  const t = claims.data;
  if (t.wf !== expected.workflowId)
    return refuse('start.wrong_workflow', 'the token starts another workflow');
  if (t.ind !== expected.inputDigest)
    return refuse('start.input_mismatch', 'the input is not the one the token signed');
  if (!signatureVerifies(jws, key))
    return refuse('start.bad_signature', `the signature does not verify with key ${key.keyId}`);
  if (t.sub !== key.principal.id)
    return refuse(
      'start.principal_mismatch',
      `key ${key.keyId} belongs to ${key.principal.id}, not ${t.sub}`,
    );
  const late = tokenTimeProblem(key, t, nowMs, MAX_START_TOKEN_LIFETIME_SECONDS);
  if (late) return refuse(`start.${late.reason}`, late.message);
  if (t.obo === undefined) {
    const p = key.principal;
    if (p.kind === 'service')
      return refuse('start.not_a_person', `${p.id} is a service: it starts for a person (obo)`);
    if (expected.userId !== undefined && expected.userId !== p.id)
      return refuse('start.identity_mismatch', `the input names user ${expected.userId}, the token ${p.id}`);
    if (!servesTenant(p, expected.tenantId))
      return refuse('start.wrong_tenant', `${p.id} does not start runs in this tenant`);
    return {
      ok: true,
      identity: {
        verified: true,
        userId: p.id,
        kind: p.kind,
        roles: p.roles,
        ...(expected.tenantId !== undefined ? { tenantId: expected.tenantId } : {}),
        keyId: key.keyId,
      },
    };
  }
  const person = scopedDelegatedPrincipal(t.obo, key.principal, directory, expected.tenantId);
  if (!person.ok) return person;
  if (expected.userId !== undefined && expected.userId !== person.principal.id)
    return refuse(
      'start.identity_mismatch',
      `the input names user ${expected.userId}, the token ${person.principal.id}`,
    );
  return {
    ok: true,
    identity: {
      verified: true,
      userId: person.principal.id,
      kind: person.principal.kind as Exclude<PrincipalKind, 'service'>,
      roles: person.principal.roles,
      ...(expected.tenantId !== undefined ? { tenantId: expected.tenantId } : {}),
      keyId: key.keyId,
      via: key.principal.id,
    },
  };
}

/** A run identity as a generation carries it to the next (checked like any input). Built on first use. */
export const RunIdentitySchema = z.lazy(() =>
  z.union([
    z
      .object({
        verified: z.literal(true),
        userId: PrincipalIdSchema,
        kind: z.enum(DELEGABLE_KINDS),
        roles: z.array(RoleSchema).max(20),
        tenantId: z.string().min(1).max(200).optional(),
        keyId: KeyIdSchema,
        via: PrincipalIdSchema.optional(),
      })
      .strict(),
    z.object({ verified: z.literal(false) }).strict(),
  ]),
);
