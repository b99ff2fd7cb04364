import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_PROOF_LIMITS } from '../contract/proof-limits.js';
import { HarnessError } from '../contract/errors.js';
import { RoleSchema } from '../contract/principals.js';
import { describeInputIssues } from '../contract/run-input.js';
import { CapsSchema } from './start-caps.js';

/**
 * The run service's configuration file (docs/api.md): where it listens, how it checks identity, which
 * key it signs delegated decisions with, who may do what at the API, and the admission limits. JSON,
 * validated on load; relative paths are resolved against the file's folder.
 */

const Rate = z.strictObject({
  /** Tokens added per second. */
  perSecond: z.number().positive().max(10_000),
  /** Bucket size: the largest burst. */
  burst: z.number().int().min(1).max(100_000),
});

/** Proof requests per second per caller (`proof.perUser`) by default. */
export const DEFAULT_PROOF_RATE = { perSecond: 0.5, burst: 5 } as const;

/** Decisions per second per caller when `limits.decisionsPerUser` is not set. */
export const DEFAULT_DECISION_RATE = { perSecond: 2, burst: 20 } as const;

/** Context and payload reads per second per caller when `limits.inspectionsPerUser` is not set. */
export const DEFAULT_INSPECTION_RATE = { perSecond: 5, burst: 30 } as const;

/** Erasures per second per caller when `limits.erasuresPerUser` is not set (one per 10 s, 5 at once). */
export const DEFAULT_ERASURE_RATE = { perSecond: 0.1, burst: 5 } as const;

/** The roles that may erase a run's erasable values by default (`roles.erase`). */
export const DEFAULT_ERASE_ROLES = ['privacy_officer'];

const Roles = z.array(RoleSchema).min(1).max(20);

export const ServiceConfigSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65_535).default(8787),
    })
    .default({ host: '127.0.0.1', port: 8787 }),
  identity: z.strictObject({
    /** A JWKS file (RFC 7517) with the public keys bearer tokens are signed with. */
    jwksFile: z.string().min(1),
    /**
     * Required `iss` and `aud` of every token. The service refuses to start without them (outside
     * `--dev`, see {@link requireIssuerAndAudience}): any token signed with the same keys for another
     * audience would pass.
     */
    issuer: z.string().min(1).optional(),
    audience: z.string().min(1).optional(),
    /** Accepted JWS algorithms. */
    algorithms: z
      .array(z.enum(['EdDSA', 'ES256', 'ES384', 'RS256', 'PS256']))
      .min(1)
      .default(['EdDSA', 'ES256', 'RS256']),
  }),
  /**
   * The service's decision key file (`harness keys create`): a `service` principal whose registry entry
   * has a `delegation` (docs/authorization.md), so runs accept what it signs on a caller's behalf.
   */
  delegateKeyFile: z.string().min(1),
  /** The task queue runs are started on (default: the harness settings'). */
  taskQueue: z.string().min(1).optional(),
  /** Roles a caller needs for each API action (besides belonging to the run's tenant). */
  roles: z
    .strictObject({
      start: Roles.default(['requester', 'operator']),
      /** See the internal (unprojected) events of a run. */
      internalEvents: Roles.default(['operator']),
      /**
       * Erase a finished run's erasable values (`POST /v1/runs/:id/erase`, crypto-shredding), with
       * `kind: operator`: a role of its own, not an operator's by default.
       */
      erase: Roles.default(DEFAULT_ERASE_ROLES),
    })
    .default({ start: ['requester', 'operator'], internalEvents: ['operator'], erase: DEFAULT_ERASE_ROLES }),
  limits: z
    .strictObject({
      startsPerTenant: Rate.default({ perSecond: 20, burst: 40 }),
      startsPerUser: Rate.default({ perSecond: 5, burst: 10 }),
      activeRunsPerTenant: z.number().int().min(1).max(1_000_000).default(1_000),
      activeRunsPerUser: z.number().int().min(1).max(1_000_000).default(100),
      sseConnectionsPerTenant: z.number().int().min(1).max(100_000).default(500),
      sseConnectionsPerUser: z.number().int().min(1).max(100_000).default(50),
      /**
       * Decisions (and cancellations) per caller (tenant and `sub`), refused or not; absent:
       * {@link DEFAULT_DECISION_RATE}.
       */
      decisionsPerUser: Rate.optional(),
      /**
       * Reads of a run's context packages and tool payloads (the run page's reveals) per caller, refused
       * or not; absent: {@link DEFAULT_INSPECTION_RATE}.
       */
      inspectionsPerUser: Rate.optional(),
      /** Erasures per caller, refused or not; absent: {@link DEFAULT_ERASURE_RATE}. */
      erasuresPerUser: Rate.optional(),
    })
    .default({
      startsPerTenant: { perSecond: 20, burst: 40 },
      startsPerUser: { perSecond: 5, burst: 10 },
      activeRunsPerTenant: 1_000,
      activeRunsPerUser: 100,
      sseConnectionsPerTenant: 500,
      sseConnectionsPerUser: 50,
    }),
  /**
   * The proof endpoints (`/v1/runs/:id/verification`, `/bundle`; docs/api.md): the largest run they
   * read (events, bytes; over them 413 `proof.too_large`, the CLI verifies such runs), and each
   * caller's budget (requests per second, and at once; over it 429 `rate.proof_user`).
   */
  proof: z
    .strictObject({
      maxEvents: z.number().int().min(1).max(10_000_000).default(DEFAULT_PROOF_LIMITS.maxEvents),
      maxBytes: z
        .number()
        .int()
        .min(1024)
        .max(4 * 1024 * 1024 * 1024)
        .default(DEFAULT_PROOF_LIMITS.maxBytes),
      perUser: Rate.default(DEFAULT_PROOF_RATE),
      concurrentPerUser: z.number().int().min(1).max(100).default(2),
    })
    .default({ ...DEFAULT_PROOF_LIMITS, perUser: DEFAULT_PROOF_RATE, concurrentPerUser: 2 }),
  /** Caps on the budget and model route a starter may ask for, per tenant and per role. */
  caps: CapsSchema,
  /** How often an SSE stream reads new events from the evidence store, and sends a heartbeat. */
  stream: z
    .strictObject({
      pollMs: z.number().int().min(20).max(10_000).default(250),
      heartbeatMs: z.number().int().min(100).max(120_000).default(15_000),
    })
    .default({ pollMs: 250, heartbeatMs: 15_000 }),
});

export type ServiceConfig = z.infer<typeof ServiceConfigSchema>;
export type ServiceConfigInput = z.input<typeof ServiceConfigSchema>;

/**
 * Validate a configuration object.
 * @throws HarnessError `service.config_invalid` naming the first problems.
 */
export function parseServiceConfig(value: unknown, source = 'inline'): ServiceConfig {
  const parsed = ServiceConfigSchema.safeParse(value);
  if (!parsed.success)
    throw new HarnessError(
      'service.config_invalid',
      `service config ${source}: ${describeInputIssues(parsed.error)}`,
      { source },
    );
  return parsed.data;
}

/**
 * Read the configuration file; relative `jwksFile` and `delegateKeyFile` are taken from its folder.
 * @throws HarnessError `service.config_invalid` when it cannot be read, is not JSON or does not validate.
 */
export function loadServiceConfig(path: string): ServiceConfig {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new HarnessError('service.config_invalid', `service config ${path}: ${(err as Error).message}`, {
      source: path,
    });
  }
  const config = parseServiceConfig(value, path);
  const base = dirname(resolve(path));
  return {
    ...config,
    identity: { ...config.identity, jwksFile: resolve(base, config.identity.jwksFile) },
    delegateKeyFile: resolve(base, config.delegateKeyFile),
  };
}

/**
 * Refuse a configuration without `identity.issuer` and `identity.audience`, unless `dev` (a local
 * setup, where the dev issuer sets both anyway).
 * @throws HarnessError `service.config_invalid` naming what is missing and how to fix it.
 */
export function requireIssuerAndAudience(config: ServiceConfig, dev: boolean): void {
  const missing = [
    ...(config.identity.issuer === undefined ? ['identity.issuer'] : []),
    ...(config.identity.audience === undefined ? ['identity.audience'] : []),
  ];
  if (missing.length === 0 || dev) return;
  throw new HarnessError(
    'service.config_invalid',
    `service config: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required: set them to your identity provider's token issuer (iss) and this service's audience (aud), so tokens minted for other services are refused (only --dev may leave them out)`,
    { missing },
  );
}
