import type { AttestationRegistry } from '../../src/contract/chain-head.js';
import type { ChainHeadSigner } from '../../src/activities/attestation/chain-head-signer.js';
import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet } from 'jose';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { EvidenceStore } from '../../src/activities/store/index.js';
import { composeAgentRun } from '../../src/workflows/temporal/agent-run-definition.js';
import { createRunService } from '../../src/service/run-service.js';
import {
  parseServiceConfig,
  type ServiceConfig,
  type ServiceConfigInput,
} from '../../src/service/service-config.js';
import { showcaseDefinition } from '../../apps/showcase/workflow/definition.js';
import type { HarnessFixture } from './harness.js';
import { TEST_KEYS } from './principals.js';

/** The issuer and audience test tokens carry and the test service requires. */
export const TEST_ISSUER = 'https://id.test.invalid/';
export const TEST_AUDIENCE = 'agent-harness-test';

/** A signing key pair for bearer tokens and the JWKS the service trusts. */
export interface TokenIssuer {
  readonly jwks: JSONWebKeySet;
  /**
   * A bearer token for `claims` (default expiry in 10 minutes), with {@link TEST_ISSUER} and
   * {@link TEST_AUDIENCE} unless `iss`/`aud` say otherwise (`null`: no such claim).
   */
  token(
    claims: { sub: string; tenant: string; roles?: string[]; kind?: string },
    o?: { expiresIn?: string | number; iss?: string | null; aud?: string | null },
  ): Promise<string>;
}

export async function createTokenIssuer(kid = 'test-issuer'): Promise<TokenIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  return {
    jwks: { keys: [jwk] },
    token: (claims, o = {}) => {
      const jwt = new SignJWT({
        tenant: claims.tenant,
        roles: claims.roles ?? [],
        ...(claims.kind ? { kind: claims.kind } : {}),
      })
        .setProtectedHeader({ alg: 'EdDSA', kid })
        .setSubject(claims.sub)
        .setIssuedAt()
        .setExpirationTime(o.expiresIn ?? '10m');
      const iss = o.iss === undefined ? TEST_ISSUER : o.iss;
      const aud = o.aud === undefined ? TEST_AUDIENCE : o.aud;
      if (iss !== null) jwt.setIssuer(iss);
      if (aud !== null) jwt.setAudience(aud);
      return jwt.sign(privateKey);
    },
  };
}

/**
 * The test service's config: the test issuer and audience, and caps that let starters name the
 * scripted model routes (the default cap allows none); `config` overrides any part.
 */
export function testServiceConfig(config: Partial<ServiceConfigInput> = {}): ServiceConfig {
  return parseServiceConfig({
    identity: { jwksFile: 'unused', issuer: TEST_ISSUER, audience: TEST_AUDIENCE },
    delegateKeyFile: 'unused',
    caps: { default: { modelRoutes: ['scripted/*'] } },
    ...config,
  });
}

/** What a test service serves: a Temporal client, the evidence store and the task queue of its workers. */
export interface ServiceTarget {
  readonly client: Client;
  readonly store: EvidenceStore;
  readonly taskQueue: string;
}

/** A run service over a test fixture's client, store and task queue, listening on a free loopback port. */
export async function startTestService(
  h: HarnessFixture | ServiceTarget,
  issuer: TokenIssuer,
  config: Partial<ServiceConfigInput> = {},
  attestation?: AttestationRegistry,
  erasureSigner?: ChainHeadSigner,
): Promise<{ app: FastifyInstance; url: string }> {
  const target: ServiceTarget =
    'composition' in h ? { client: h.t.client, store: h.composition.store, taskQueue: h.taskQueue } : h;
  const app = createRunService({
    ...(attestation !== undefined ? { attestation } : {}),
    ...(erasureSigner !== undefined ? { erasureSigner } : {}),
    client: target.client,
    store: target.store,
    composition: composeAgentRun(showcaseDefinition),
    taskQueue: target.taskQueue,
    config: testServiceConfig(config),
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

/** What the API answers, loosely: every field a test reads. */
export interface ApiBody {
  readonly runId?: string;
  readonly tenant?: string;
  readonly user?: string | null;
  readonly status?: string | null;
  readonly pendingAction?: { readonly kind: string; readonly actionId: string } | null;
  readonly decisions?: readonly { readonly principal: string; readonly decision: string }[];
  readonly runs?: readonly { readonly runId: string }[];
  readonly view?: {
    readonly signalRejections: readonly unknown[];
    readonly decisions?: readonly unknown[];
    readonly userId?: string;
    readonly tenantId?: string;
  };
  readonly error?: { readonly code: string; readonly message: string };
  readonly accepted?: boolean;
  readonly principal?: string;
  readonly mayDecide?: boolean;
  readonly [key: string]: unknown;
}

/** What the API answered: status, headers and the JSON body. */
export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: ApiBody;
}

/** A caller of the service at `url()` with bearer `token` (none when undefined). */
export function serviceApi(url: () => string) {
  return async (
    token: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiAnswer> => {
    const res = await fetch(`${url()}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text.startsWith('{') ? (JSON.parse(text) as ApiBody) : { text },
    };
  };
}

/** Poll `GET /v1/runs/{id}` as `token` until `ok` holds (status 200), or throw after `ms`. */
export async function waitForRun(
  api: ReturnType<typeof serviceApi>,
  token: string,
  runId: string,
  ok: (run: ApiBody) => boolean,
  ms = 60_000,
): Promise<ApiBody> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await api(token, 'GET', `/v1/runs/${runId}`);
    if (r.status === 200 && ok(r.body)) return r.body;
    if (Date.now() > until)
      throw new Error(`run ${runId} never got there: ${JSON.stringify(r.body).slice(0, 500)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** How many updates a run's history holds (refused decisions that reached the run add to it). */
export async function updatesInHistory(h: HarnessFixture, runId: string): Promise<number> {
  const history = await h.t.client.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
}
