import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet } from 'jose';
import type { FastifyInstance } from 'fastify';
import { composeAgentRun } from '../../src/core/workflow/agent-run-definition.js';
import { createRunService } from '../../src/service/run-service.js';
import { parseServiceConfig, type ServiceConfigInput } from '../../src/service/service-config.js';
import { showcaseDefinition } from '../../apps/showcase/workflow/definition.js';
import type { HarnessFixture } from './harness.js';
import { TEST_KEYS } from './principals.js';

/** A signing key pair for bearer tokens and the JWKS the service trusts. */
export interface TokenIssuer {
  readonly jwks: JSONWebKeySet;
  /** A bearer token for `claims` (default expiry in 10 minutes). */
  token(
    claims: { sub: string; tenant: string; roles?: string[]; kind?: string },
    o?: { expiresIn?: string | number },
  ): Promise<string>;
}

export async function createTokenIssuer(kid = 'test-issuer'): Promise<TokenIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  return {
    jwks: { keys: [jwk] },
    token: (claims, o = {}) =>
      new SignJWT({
        tenant: claims.tenant,
        roles: claims.roles ?? [],
        ...(claims.kind ? { kind: claims.kind } : {}),
      })
        .setProtectedHeader({ alg: 'EdDSA', kid })
        .setSubject(claims.sub)
        .setIssuedAt()
        .setExpirationTime(o.expiresIn ?? '10m')
        .sign(privateKey),
  };
}

/** A run service over a test fixture's client, store and task queue, listening on a free loopback port. */
export async function startTestService(
  h: HarnessFixture,
  issuer: TokenIssuer,
  config: Partial<ServiceConfigInput> = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const app = createRunService({
    client: h.t.client,
    store: h.composition.store,
    composition: composeAgentRun(showcaseDefinition),
    taskQueue: h.taskQueue,
    config: parseServiceConfig({ identity: { jwksFile: 'unused' }, delegateKeyFile: 'unused', ...config }),
    jwks: issuer.jwks,
    delegateKey: TEST_KEYS.service,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

/** One Server-Sent Event as a client sees it. */
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/**
 * Read a Server-Sent Events response until `until` says stop, the stream ends, or `timeoutMs` passes
 * (then the read is aborted and what was read so far returned).
 */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  until: (e: SseEvent, all: SseEvent[]) => boolean,
  timeoutMs = 60_000,
): Promise<{ status: number; events: SseEvent[]; ended: boolean }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const events: SseEvent[] = [];
  let ended = false;
  try {
    const res = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: abort.signal,
    });
    if (!res.ok || !res.body) return { status: res.status, events, ended: true };
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e: { id?: string; event: string; data: string } = { event: 'message', data: '' };
        let hasData = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const [field, ...rest] = line.split(':');
          const v = rest.join(':').replace(/^ /, '');
          if (field === 'id') e.id = v;
          else if (field === 'event') e.event = v;
          else if (field === 'data') {
            e.data += (hasData ? '\n' : '') + v;
            hasData = true;
          }
        }
        if (!hasData) continue;
        events.push(e);
        if (until(e, events)) {
          abort.abort();
          return { status: res.status, events, ended };
        }
      }
    }
    return { status: res.status, events, ended };
  } catch (err) {
    if ((err as Error).name === 'AbortError') return { status: 200, events, ended };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
