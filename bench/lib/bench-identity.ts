/**
 * Who the run-service benches (service-load.ts, service-concurrency.ts, waiting-runs.ts) act as: a bearer-token issuer
 * with a JWKS the service trusts, and the service's delegate key with a principal registry (for the
 * worker) that trusts it to sign for customers and approvers of any tenant. Bench-only keys, made
 * fresh in memory for each run of a bench; nothing is written to disk.
 */
import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet } from 'jose';
import {
  decisionKeyFrom,
  generateDecisionKey,
  type DecisionKey,
  type DecisionKeyFile,
} from '../../src/client/decisions/decision-key.js';
import type { PrincipalRegistry } from '../../src/contract/principals.js';

export interface BenchIdentity {
  readonly issuer: string;
  readonly audience: string;
  readonly jwks: JSONWebKeySet;
  readonly delegateKey: DecisionKey;
  /** The delegate key's file form, for a worker process or a start signer that loads it. */
  readonly delegateKeyFile: DecisionKeyFile;
  readonly principals: PrincipalRegistry;
  /** `Bearer <jwt>` of tenant's customer (`requester`) or approver (`refund_approver`, `approver`). */
  bearer(tenant: string, who: 'customer' | 'approver'): Promise<string>;
  /** A bearer JWT (without `Bearer `) for any subject, roles and kind of a tenant, valid for 2 hours. */
  token(claims: BenchClaims): Promise<string>;
}

export interface BenchClaims {
  readonly tenant: string;
  readonly subject: string;
  readonly roles: readonly string[];
  readonly kind: 'customer' | 'approver';
}

export async function benchIdentity(): Promise<BenchIdentity> {
  const issuer = 'https://bench.invalid';
  const audience = 'agent-harness-bench';
  const generated = generateDecisionKey({
    principal: 'run-service',
    keyId: 'rs-1',
    kind: 'service',
    roles: [],
  });
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const token = (c: BenchClaims) =>
    new SignJWT({ tenant: c.tenant, roles: [...c.roles], kind: c.kind })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(c.subject)
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign(privateKey);
  return {
    issuer,
    audience,
    jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'EdDSA', use: 'sig' }] },
    delegateKey: decisionKeyFrom(generated.keyFile),
    principals: {
      version: 1,
      principals: [
        {
          ...generated.principal,
          delegation: {
            roles: ['approver', 'refund_approver', 'operator', 'requester'],
            kinds: ['operator', 'approver', 'customer'],
          },
        },
      ],
    },
    delegateKeyFile: generated.keyFile,
    token,
    bearer: async (tenant, who) =>
      `Bearer ${await token({
        tenant,
        subject: who === 'customer' ? 'C1001' : `dana@${tenant}`,
        roles: who === 'customer' ? ['requester'] : ['refund_approver', 'approver'],
        kind: who,
      })}`,
  };
}
