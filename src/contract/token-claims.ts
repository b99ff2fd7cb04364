import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import { DELEGABLE_KINDS, KeyIdSchema, PrincipalIdSchema, RoleSchema } from './principals.js';
import { sha256Hex } from './sha256.js';

/**
 * What a signed decision or a signed start says (docs/authorization.md): the JWS types, the claims and
 * the payload digests a token binds. Signers (the client, the run service) build tokens from these;
 * the workflow verifies them (workflows/authz/decision-token.ts, start-token.ts). Types, schemas and
 * pure functions only.
 */

/** The JWS `typ` of a decision token. */
export const DECISION_TOKEN_TYPE = 'harness-decision+jwt';
/** Longest a token may live (expiry minus issued-at). */
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;

/** The decisions a token can carry. */
export const TOKEN_DECISIONS = [
  'approve',
  'reject',
  'confirm',
  'reconcile',
  'input',
  'cancel',
  'request_more_info',
] as const;
export type TokenDecision = (typeof TOKEN_DECISIONS)[number];

/** A token's JWS header. Built on first use (see builtOnFirstUse). */
export const DecisionTokenHeaderSchema = z.lazy(() =>
  z.object({ alg: z.literal('EdDSA'), typ: z.literal(DECISION_TOKEN_TYPE), kid: KeyIdSchema }).strict(),
);

/**
 * The `obo` claim of decision and start tokens: the person a delegate authenticated, their kind and
 * roles, and the tenant it authenticated them in. A function, so each schema builds it on first use.
 */
export const OnBehalfClaimSchema = () =>
  z
    .object({
      sub: PrincipalIdSchema,
      kind: z.enum(DELEGABLE_KINDS),
      roles: z.array(RoleSchema).max(20),
      ten: z.string().min(1).max(200).optional(),
    })
    .strict();

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
      obo: OnBehalfClaimSchema().optional(),
    })
    .strict(),
);
export type DecisionClaims = z.infer<typeof DecisionClaimsSchema>;

/** The digest a token binds the rest of the decision's payload with (its `token` field left out). */
export function decisionPayloadDigest(payload: Readonly<Record<string, unknown>>): string {
  return digestWithout(payload, 'token');
}

/** `sha256:` of the canonical JSON of `value` without its `field` (the token that signs the rest). */
function digestWithout(value: Readonly<Record<string, unknown>>, field: string): string {
  const rest = Object.fromEntries(Object.entries(value).filter(([k]) => k !== field));
  return `sha256:${sha256Hex(canonicalJson(rest))}`;
}

/** The JWS `typ` of a start token. */
export const START_TOKEN_TYPE = 'harness-start+jwt';
/** Longest a start token may live (expiry minus issued-at): it is used once, at the start. */
export const MAX_START_TOKEN_LIFETIME_SECONDS = 3600;

/** A start token's claims. Built on first use (see builtOnFirstUse). */
export const StartClaimsSchema = z.lazy(() =>
  z
    .object({
      /** Workflow id of the run. */
      wf: z.string().min(1).max(400),
      /** {@link startInputDigest} of the run's input. */
      ind: z.string().regex(/^sha256:[0-9a-f]{64}$/),
      sub: PrincipalIdSchema,
      iat: z.number().int().nonnegative(),
      exp: z.number().int().positive(),
      jti: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
      /** On behalf of: a delegate names the person it authenticated, their kind, roles and tenant. */
      obo: OnBehalfClaimSchema().optional(),
    })
    .strict(),
);
export type StartClaims = z.infer<typeof StartClaimsSchema>;

/** The digest a start token binds the run's input with (its `startToken` field left out). */
export function startInputDigest(input: Readonly<Record<string, unknown>>): string {
  return digestWithout(input, 'startToken');
}
