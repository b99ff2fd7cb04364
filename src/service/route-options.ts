import type { Client } from '@temporalio/client';
import type { AttestationRegistry } from '../contract/chain-head.js';
import type { ChainHeadSigner } from '../activities/attestation/chain-head-signer.js';
import type { FastifyRequest } from 'fastify';
import type { AgentRunComposition } from '../workflows/index.js';
import type { DecisionKey } from '../client/decisions/decision-key.js';
import type { OnBehalfOf } from '../client/decisions/sign-decision.js';
import type { EvidenceStore } from '../activities/store/index.js';
import type { Admission } from './admission.js';
import type { ActiveRuns } from './active-run-counts.js';
import type { OpenStreams } from './open-streams.js';
import { ApiError } from './api-error.js';
import type { Caller } from './caller-identity.js';
import type { RunEventFeeds } from './run-event-feed.js';
import type { ServiceConfig } from './service-config.js';
import type { ServiceMetrics } from './service-metrics.js';

/** What the /v1/runs routes share (docs/api.md). */
export interface RunRoutesOptions {
  readonly client: Client;
  readonly store: EvidenceStore;
  readonly composition: AgentRunComposition;
  readonly taskQueue: string;
  readonly delegateKey: DecisionKey;
  readonly config: ServiceConfig;
  readonly admission: Admission;
  readonly metrics: ServiceMetrics;
  /** Active-run counts for the start admission, shared by concurrent starts. */
  readonly activeRuns: ActiveRuns;
  /** One store poller per followed run, shared by its streams. */
  readonly feeds: RunEventFeeds;
  /** When a request reached the service (epoch ms, before its token was verified): rate buckets judge by it. */
  readonly arrivedAt: (req: FastifyRequest) => number;
  /** The verified caller of a request (set by the service's auth hook). */
  readonly callerOf: (req: FastifyRequest) => Caller;
  /** The open event streams, all ended when the service closes. */
  readonly streams: OpenStreams;
  /** The attestation keys a run's verification trusts (RunServiceOptions.attestation). */
  readonly attestation?: AttestationRegistry;
  /** The key erasure records are signed with (RunServiceOptions.erasureSigner); absent: unsigned. */
  readonly erasureSigner?: Pick<ChainHeadSigner, 'keyId' | 'privateKey'>;
}

/**
 * Parse with a zod schema.
 * @throws ApiError 400 `request.invalid` naming the first problem.
 */
export function parse<T>(
  schema: {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  value: unknown,
  what: string,
): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  throw new ApiError(
    400,
    'request.invalid',
    `${what}: ${i?.path.map(String).join('.') || '(root)'}: ${i?.message}`,
  );
}

/**
 * What the service vouches for when it signs on the caller's behalf (a decision, or the start of the
 * caller's run): their id, kind, roles (at most 20, what a token names) and tenant, from the bearer token.
 */
export function onBehalfOf(caller: Caller): OnBehalfOf {
  return { sub: caller.user, kind: caller.kind, roles: [...caller.roles].slice(0, 20), ten: caller.tenant };
}

/** True when the caller holds one of `roles`. */
export const hasRole = (caller: Caller, roles: readonly string[]): boolean =>
  caller.roles.some((r) => roles.includes(r));

/** A visibility query string literal. */
export const quote = (v: string): string => `'${v.replace(/'/g, "''")}'`;

/**
 * Refuse unless the caller is an operator with a role of `roles.internalEvents` (invocations, context
 * packages and proofs read what the public view leaves out).
 * @throws ApiError 403 `auth.role_missing` naming `what` and the roles that would do.
 */
export function requireInternalEvents(
  o: Pick<RunRoutesOptions, 'config'>,
  caller: Caller,
  what: string,
): void {
  if (!(caller.kind === 'operator' && hasRole(caller, o.config.roles.internalEvents)))
    throw new ApiError(
      403,
      'auth.role_missing',
      `${what} need an operator with one of the roles ${o.config.roles.internalEvents.join(', ')}`,
    );
}
