import { readAttestationRegistry } from '../read-attestation.js';
import { resolveAttestation } from '../../activities/attestation/chain-head-signer.js';
import { composeAgentRun } from '../../workflows/index.js';
import { resolve } from 'node:path';
import { loadDecisionKey } from '../../client/decisions/decision-key.js';
import { readJwksFile } from '../../service/caller-identity.js';
import { ensureDevServiceFiles, mintDevToken } from '../../service/dev-identity.js';
import { createRunService } from '../../service/run-service.js';
import { loadServiceConfig, requireIssuerAndAudience } from '../../service/service-config.js';
import { RoleSchema } from '../../contract/principals.js';
import type { HarnessApp } from '../../worker/app.js';
import { harnessSettings } from '../../worker/settings.js';
import { connectTemporal, openCliStore } from '../connect.js';
import { EXIT, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { parsePositiveInt } from '../read-json.js';

export interface ServeOptions {
  readonly config?: string;
  readonly dev?: boolean;
  readonly host?: string;
  readonly port?: string;
  readonly searchAttributes?: string;
}

const SEARCH_ATTRIBUTE_MODES = ['register', 'check', 'skip'] as const;

const dataDir = () => resolve(process.cwd(), '.data');

/**
 * `harness serve`: the run service (docs/api.md) until SIGINT/SIGTERM. `--config <file>` names its
 * configuration; `--dev` creates (once) a local token issuer, the service's delegate key and config
 * under `.data/service/`, and adds the delegate to `.data/principals.json` (restart workers to trust it).
 * `--search-attributes register|check|skip` (default register): what it does at start about the
 * namespace's search attributes. Logs every request as JSON lines on stderr.
 * @throws CliError `cli.usage` (exit 2) without `--config` or `--dev`, or for a bad `--search-attributes`;
 *   `temporal.search_attributes_missing`/`_conflict` when the namespace lacks them (see createRunService); `service.config_invalid` for a bad
 *   file, or one without `identity.issuer` and `identity.audience` outside `--dev`.
 */
export async function serveCommand(app: HarnessApp, o: ServeOptions, out: Output): Promise<number> {
  let configPath = o.config;
  if (configPath === undefined) {
    if (!o.dev)
      throw usageError('pass --config <file> (docs/api.md) or --dev for a local setup', {
        option: '--config',
      });
    const dev = await ensureDevServiceFiles(dataDir());
    for (const f of dev.created) out.progress(`created ${f}`);
    if (dev.created.includes(dev.files.registryPath))
      out.progress(
        `the registry now trusts the service's delegate key: restart workers that read ${dev.files.registryPath}`,
      );
    configPath = dev.files.configPath;
  }
  const config = loadServiceConfig(configPath);
  // Before connecting to anything: a production service without iss/aud does not start.
  requireIssuerAndAudience(config, o.dev === true);
  if (o.dev && (config.identity.issuer === undefined || config.identity.audience === undefined))
    out.progress(
      'warning: no identity.issuer/audience in the config: tokens of any issuer with these keys pass',
    );
  const searchAttributes = o.searchAttributes ?? 'register';
  if (!(SEARCH_ATTRIBUTE_MODES as readonly string[]).includes(searchAttributes))
    throw usageError(`--search-attributes: one of ${SEARCH_ATTRIBUTE_MODES.join(', ')}`, {
      option: '--search-attributes',
    });
  const port = o.port !== undefined ? parsePositiveInt('--port', o.port, true) : config.listen.port;
  const host = o.host ?? config.listen.host;
  const t = await connectTemporal();
  const store = await openCliStore();
  const attestation = readAttestationRegistry(undefined);
  // The key erasure records are signed with (HARNESS_ATTESTATION_KEY); unreadable: the service does not start.
  const erasureSigner = resolveAttestation(process.env);
  const service = createRunService({
    client: t.client,
    store,
    composition: composeAgentRun(app.definition),
    taskQueue: config.taskQueue ?? harnessSettings().taskQueue,
    config,
    jwks: readJwksFile(config.identity.jwksFile),
    delegateKey: loadDecisionKey(config.delegateKeyFile),
    // The worker attestation keys the run page's verification trusts (HARNESS_ATTESTATION_KEYS).
    ...(attestation !== undefined ? { attestation } : {}),
    ...(erasureSigner !== undefined ? { erasureSigner } : {}),
    dev: o.dev === true,
    searchAttributes: searchAttributes as (typeof SEARCH_ATTRIBUTE_MODES)[number],
    // Every request and every 5xx with its cause, one JSON line each, on stderr.
    log: { level: 'info' },
  });
  const url = await service.listen({ host, port });
  out.data({ url, inbox: `${url}/inbox`, openapi: `${url}/openapi.json` });
  out.line(`run service at ${url} (inbox ${url}/inbox, OpenAPI ${url}/openapi.json); Ctrl-C stops it`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await service.close();
  await store.close();
  await t.close();
  return EXIT.ok;
}

export interface TokenOptions {
  readonly tenant: string;
  readonly user: string;
  readonly roles?: string;
  readonly kind?: string;
  readonly ttl?: string;
}

const KINDS = ['operator', 'approver', 'customer'] as const;

/** `harness token`: a dev bearer token for the run service (`harness serve --dev` creates the issuer). */
export async function tokenCommand(o: TokenOptions, out: Output): Promise<number> {
  const roles = (o.roles ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const r of roles)
    if (!RoleSchema.safeParse(r).success)
      throw usageError(`--roles: ${r} is not a lowercase role name`, { option: '--roles' });
  const kind = o.kind ?? 'operator';
  if (!(KINDS as readonly string[]).includes(kind))
    throw usageError(`--kind: one of ${KINDS.join(', ')}`, { option: '--kind' });
  const ttlSeconds = o.ttl !== undefined ? parsePositiveInt('--ttl', o.ttl) : 3600;
  const token = await mintDevToken(dataDir(), {
    tenant: o.tenant,
    user: o.user,
    roles,
    kind: kind as (typeof KINDS)[number],
    ttlSeconds,
  });
  out.data({ token });
  out.line(token);
  return EXIT.ok;
}
