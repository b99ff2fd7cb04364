import { randomBytes, sign } from 'node:crypto';
import type { AgentRunInput } from '../../contract/run-input.js';
import { START_TOKEN_TYPE, startInputDigest, type StartClaims } from '../../contract/token-claims.js';
import type { DecisionKey } from './decision-key.js';
import type { OnBehalfOf } from './sign-decision.js';

/** Default start token lifetime: five minutes (a start token lives at most an hour). */
export const DEFAULT_START_TOKEN_TTL_SECONDS = 300;

/** Who signs a start: the requester's key, or a delegate's naming the person it authenticated. */
export interface StartSigner {
  readonly key: DecisionKey;
  /** For a delegate (the run service): the person, their kind, roles and tenant. */
  readonly onBehalfOf?: OnBehalfOf;
  readonly ttlSeconds?: number;
  readonly now?: Date;
}

/**
 * Sign a start (docs/authorization.md, "Who a run is for"): returns `input` with its `startToken`, a
 * compact JWS (EdDSA) over the workflow id and the digest of the input without the token. Sign the
 * input exactly as it is sent: any later change to it is refused by the run (`start.input_mismatch`).
 */
export function signStart(
  signer: StartSigner,
  workflowId: string,
  input: AgentRunInput,
): AgentRunInput & { startToken: string } {
  const { startToken: _old, ...rest } = input;
  const iat = Math.floor((signer.now ?? new Date()).getTime() / 1000);
  const claims: StartClaims = {
    wf: workflowId,
    ind: startInputDigest(rest),
    sub: signer.key.principal,
    iat,
    exp: iat + (signer.ttlSeconds ?? DEFAULT_START_TOKEN_TTL_SECONDS),
    jti: randomBytes(16).toString('base64url'),
    ...(signer.onBehalfOf !== undefined ? { obo: signer.onBehalfOf } : {}),
  };
  const b64 = (v: string) => Buffer.from(v).toString('base64url');
  const signed = `${b64(JSON.stringify({ alg: 'EdDSA', typ: START_TOKEN_TYPE, kid: signer.key.keyId }))}.${b64(JSON.stringify(claims))}`;
  const signature = sign(null, Buffer.from(signed, 'ascii'), signer.key.privateKey).toString('base64url');
  return { ...rest, startToken: `${signed}.${signature}` };
}
