import { readFileSync } from 'node:fs';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import { z } from 'zod';
import { HarnessError } from '../contract/errors.js';
import {
  DELEGABLE_KINDS,
  PrincipalIdSchema,
  RoleSchema,
  type DelegableKind,
} from '../contract/principals.js';

/** Who is calling the API: verified from a bearer token (docs/api.md). */
export interface Caller {
  readonly tenant: string;
  /** The person (`sub`): the run's user when they start one, the principal of their decisions. */
  readonly user: string;
  readonly roles: readonly string[];
  /**
   * What the person is (claim `kind`; a token without one is a `customer`, the narrowest): a
   * `customer` sees its own runs, confirms and never approves; an `approver` sees what it may decide;
   * an `operator` sees its tenant.
   */
  readonly kind: DelegableKind;
}

/** A refused bearer token: always HTTP 401. */
export class AuthError extends HarnessError {}

/** The claims the service reads from a verified token. */
const ClaimsSchema = z.looseObject({
  sub: PrincipalIdSchema,
  tenant: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be 1-128 letters, digits or . _ -'),
  roles: z.array(RoleSchema).max(50).default([]),
  /** Absent: a customer (least privilege; an operator must say so). */
  kind: z.enum(DELEGABLE_KINDS).default('customer'),
});

/** Longest bearer token read (bytes); anything longer is refused before any parsing. */
export const MAX_BEARER_BYTES = 8_192;

export interface IdentityOptions {
  readonly jwks: JSONWebKeySet;
  readonly issuer?: string;
  readonly audience?: string;
  readonly algorithms: readonly string[];
}

/** Read a JWKS file. @throws HarnessError `service.config_invalid` when unreadable or not a JWKS. */
export function readJwksFile(path: string): JSONWebKeySet {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as JSONWebKeySet;
    if (!Array.isArray(value.keys) || value.keys.length === 0) throw new Error('no "keys"');
    return value;
  } catch (err) {
    throw new HarnessError('service.config_invalid', `JWKS ${path}: ${(err as Error).message}`, { path });
  }
}

/**
 * Verifies bearer tokens (JWT, RFC 7519) with `jose` against the configured public keys: signature,
 * algorithm, expiry (`exp` required), not-before, issuer and audience when configured, then the claims
 * the service needs (`sub`, `tenant`, `roles`, optional `kind`, default `customer`). The service
 * always configures issuer and audience outside dev mode (see `requireIssuerAndAudience`).
 */
export class CallerIdentity {
  private readonly keys: ReturnType<typeof createLocalJWKSet>;

  constructor(private readonly o: IdentityOptions) {
    this.keys = createLocalJWKSet(o.jwks);
  }

  /**
   * The caller of a request with this `Authorization` header.
   * @throws AuthError `auth.missing_token`, `auth.token_expired`, `auth.invalid_token` (bad signature,
   *   unknown key, wrong algorithm, issuer or audience, malformed) or `auth.invalid_claims`.
   */
  async verify(authorization: string | undefined): Promise<Caller> {
    if (authorization === undefined || !authorization.startsWith('Bearer '))
      throw new AuthError('auth.missing_token', 'send a bearer token: Authorization: Bearer <jwt>');
    const token = authorization.slice('Bearer '.length).trim();
    if (token.length === 0 || token.length > MAX_BEARER_BYTES)
      throw new AuthError('auth.invalid_token', 'the bearer token is empty or too long');
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        algorithms: [...this.o.algorithms],
        requiredClaims: ['exp', 'sub'],
        ...(this.o.issuer !== undefined ? { issuer: this.o.issuer } : {}),
        ...(this.o.audience !== undefined ? { audience: this.o.audience } : {}),
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired)
        throw new AuthError('auth.token_expired', 'the token has expired');
      throw new AuthError('auth.invalid_token', `the token does not verify (${(err as Error).name})`);
    }
    const claims = ClaimsSchema.safeParse(payload);
    if (!claims.success) {
      const first = claims.error.issues[0];
      throw new AuthError(
        'auth.invalid_claims',
        `token claim ${first?.path.join('.') || '(root)'}: ${first?.message}`,
      );
    }
    const c = claims.data;
    return { tenant: c.tenant, user: c.sub, roles: c.roles, kind: c.kind };
  }
}
