import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { AttestationRegistry } from '../contract/chain-head.js';
import type { ChainHeadSigner } from '../activities/attestation/chain-head-signer.js';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AgentRunComposition } from '../workflows/index.js';
import type { DecisionKey } from '../client/decisions/decision-key.js';
import type { EvidenceStore } from '../activities/store/index.js';
import { Admission } from './admission.js';
import { ApiError } from './api-error.js';
import { activeRunsIn } from './active-run-counts.js';
import { OpenStreams } from './open-streams.js';
import { MAX_BODY_BYTES } from './body-limit.js';
import { CallerIdentity } from './caller-identity.js';
import { waitForHandlersOnClose } from './close-waits.js';
import { setErrorReplies } from './error-replies.js';
import { registerOpenRoutes } from './open-routes.js';
import { addRequestHooks } from './request-hooks.js';
import { RunEventFeeds } from './run-event-feed.js';
import { registerRunRoutes } from './run-routes.js';
import { requireIssuerAndAudience, type ServiceConfig } from './service-config.js';
import { ServiceMetrics } from './service-metrics.js';
import type { JSONWebKeySet } from 'jose';
import { prepareSearchAttributes, type SearchAttributesMode } from '../devserver/search-attributes.js';

export interface RunServiceOptions {
  readonly client: Client;
  readonly store: EvidenceStore;
  /** The app's profiles and policies (to resolve and check what a start names). */
  readonly composition: AgentRunComposition;
  readonly taskQueue: string;
  readonly config: ServiceConfig;
  /** The public keys bearer tokens verify against (the config's `jwksFile`, read). */
  readonly jwks: JSONWebKeySet;
  /** The service's delegate decision key (the config's `delegateKeyFile`, loaded). */
  readonly delegateKey: DecisionKey;
  /**
   * The worker attestation keys the run page's verification trusts for signed chain heads
   * (`HARNESS_ATTESTATION_KEYS` for `harness serve`, docs/evidence-chain.md); absent: the heads check fails.
   */
  readonly attestation?: AttestationRegistry;
  /**
   * The attestation key erasure records are signed with (`POST /v1/runs/:id/erase`; `HARNESS_ATTESTATION_KEY`
   * for `harness serve`, docs/evidence-chain.md, "Erasure"); absent: records unsigned, and the
   * verifier's `erasures` check fails them (`erasures.unsigned`).
   */
  readonly erasureSigner?: Pick<ChainHeadSigner, 'keyId' | 'privateKey'>;
  /**
   * Local development (`harness serve --dev`): the config may leave out `identity.issuer` and
   * `identity.audience`. Never in production.
   */
  readonly dev?: boolean;
  /**
   * The namespace's search attributes, checked when the service gets ready (`listen`, `ready`):
   * `register` (default) registers the missing ones through the operator service, `check` only
   * fails naming them, `skip` does neither. `/readyz` reports them either way.
   */
  readonly searchAttributes?: SearchAttributesMode;
  /**
   * The service log: one JSON line per entry (Fastify's pino logger), each with the `requestId` sent in
   * the `x-request-id` header. `info` logs every request and response, `error` (default) only server
   * errors (every 5xx with its cause), `silent` nothing. Written to `stream` (default stderr).
   */
  readonly log?: {
    readonly level?: 'info' | 'error' | 'silent';
    readonly stream?: { write(line: string): void };
  };
}

export { MAX_BODY_BYTES } from './body-limit.js';

/**
 * The run service (`harness serve`, docs/api.md): an HTTP API over the harness client with identity
 * (bearer JWTs), tenancy and per-user scope (a caller sees and decides only the runs in its scope;
 * others answer 404), admission limits (429 with Retry-After), public events as Server-Sent Events, decisions signed on
 * the caller's behalf by the service's delegate key (the run still checks them), Prometheus metrics,
 * an OpenAPI document and the approval inbox page. Returns the Fastify instance, not listening yet.
 * Within a tenant, each caller sees its scope only (docs/api.md, "Scope").
 * @throws HarnessError `service.config_invalid` when the config has no `identity.issuer` or
 *   `identity.audience` and `dev` is not set. Getting ready (`listen`, `ready`, the first `inject`)
 *   rejects with `temporal.search_attributes_missing` (naming them and the create commands) or
 *   `temporal.search_attributes_conflict` when the namespace lacks the harness's search attributes
 *   and they could not be registered (see `searchAttributes`).
 */
export function createRunService(o: RunServiceOptions): FastifyInstance {
  requireIssuerAndAudience(o.config, o.dev === true);
  const app = Fastify({
    logger: { level: o.log?.level ?? 'error', stream: o.log?.stream ?? process.stderr },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: MAX_BODY_BYTES,
    // Closing is answered below, in the service's one error shape (Fastify's own 503 body is another).
    return503OnClosing: false,
  });
  let closingNow = false;
  app.addHook('preClose', (done) => {
    closingNow = true;
    done();
  });
  app.addHook('onRequest', (_req, _reply, done) => {
    done(
      closingNow
        ? new ApiError(503, 'service.closing', 'the service is closing; retry on another instance', 1)
        : undefined,
    );
  });
  app.addHook('onReady', async () => {
    if (o.searchAttributes === 'skip') return;
    await prepareSearchAttributes(
      o.client.connection,
      o.client.options.namespace,
      o.searchAttributes,
      (line) => app.log.info(line),
    );
  });
  const identity = new CallerIdentity({
    jwks: o.jwks,
    algorithms: o.config.identity.algorithms,
    ...(o.config.identity.issuer !== undefined ? { issuer: o.config.identity.issuer } : {}),
    ...(o.config.identity.audience !== undefined ? { audience: o.config.identity.audience } : {}),
  });
  const metrics = new ServiceMetrics();
  const admission = new Admission(o.config.limits);
  const streams = new OpenStreams();
  const feeds = new RunEventFeeds({ store: o.store, pollMs: o.config.stream.pollMs });
  const requests = addRequestHooks(app, identity, metrics);
  waitForHandlersOnClose(app, async () => {
    streams.closeAll();
    await feeds.close();
  });
  setErrorReplies(app, metrics);
  registerOpenRoutes(app, { client: o.client, store: o.store, admission, feeds, metrics });
  registerRunRoutes(app, {
    client: o.client,
    store: o.store,
    composition: o.composition,
    taskQueue: o.taskQueue,
    delegateKey: o.delegateKey,
    config: o.config,
    admission,
    metrics,
    activeRuns: activeRunsIn(o.client),
    feeds,
    streams,
    arrivedAt: requests.arrivedAt,
    callerOf: requests.callerOf,
    ...(o.attestation !== undefined ? { attestation: o.attestation } : {}),
    ...(o.erasureSigner !== undefined ? { erasureSigner: o.erasureSigner } : {}),
  });
  return app;
}
