import { randomBytes, sign } from 'node:crypto';
import {
  DECISION_TOKEN_TYPE,
  decisionPayloadDigest,
  type DecisionClaims,
  type TokenDecision,
} from '../../contract/token-claims.js';
import type { DecisionKey } from './decision-key.js';

/** Default token lifetime: five minutes (tokens may live at most a day). */
export const DEFAULT_TOKEN_TTL_SECONDS = 300;

function b64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** What a token is bound to. */
export interface DecisionTarget {
  readonly workflowId: string;
  /** The run's first execution run id (the `state` query shows it as `firstExecutionRunId`). */
  readonly firstExecutionRunId: string;
  /** The pending action's id (`cancel` for a cancellation). */
  readonly actionId: string;
  /** The pending action's argument digest, if it has one. */
  readonly argsDigest?: string | null;
}

/** The person a delegate (a `service` principal, e.g. the run service) decides for. */
export type OnBehalfOf = NonNullable<DecisionClaims['obo']>;

/**
 * Sign a decision: a compact JWS (EdDSA) over the target, the decision, the digest of `payload`
 * (everything the decision sends but the token), the principal, issued-at and expiry. Returns the
 * payload with its `token`. With `onBehalfOf` the key is a delegate's and the token names the person
 * it authenticated (the payload's actor must then be that person).
 */
export function signDecision<P extends Record<string, unknown>>(
  key: DecisionKey,
  target: DecisionTarget,
  decision: TokenDecision,
  payload: P,
  o: { readonly ttlSeconds?: number; readonly now?: Date; readonly onBehalfOf?: OnBehalfOf } = {},
): P & { token: string } {
  const iat = Math.floor((o.now ?? new Date()).getTime() / 1000);
  const claims: DecisionClaims = {
    wf: target.workflowId,
    rid: target.firstExecutionRunId,
    act: target.actionId,
    dig: target.argsDigest ?? null,
    dec: decision,
    pd: decisionPayloadDigest(payload),
    sub: key.principal,
    iat,
    exp: iat + (o.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS),
    jti: randomBytes(16).toString('base64url'),
    ...(o.onBehalfOf !== undefined ? { obo: o.onBehalfOf } : {}),
  };
  const header = { alg: 'EdDSA', typ: DECISION_TOKEN_TYPE, kid: key.keyId };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = sign(null, Buffer.from(input, 'ascii'), key.privateKey);
  return { ...payload, token: `${input}.${signature.toString('base64url')}` };
}
