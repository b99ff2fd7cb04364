import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { PrincipalRegistrySchema, type PrincipalRegistry } from '../contract/principals.js';
import { HarnessError } from '../contract/errors.js';
import { generateDecisionKey } from '../client/decisions/decision-key.js';

/**
 * The run service's local development identity (docs/api.md, "Dev mode"), under `<data>/service/`:
 * - `jwt-issuer.json`: an Ed25519 private JWK that `harness token` signs bearer tokens with (0600);
 * - `jwks.json`: its public half, which the service verifies tokens against;
 * - `run-service.json`: the service's delegate decision key (0600);
 * - `service.json`: a service config naming them;
 * and the `run-service` delegate in the worker's registry `<data>/principals.json`. Never for production:
 * there, tokens come from your identity provider and the registry is yours.
 */

/** The dev issuer and audience every dev token carries. */
export const DEV_ISSUER = 'agent-harness-dev';
export const DEV_AUDIENCE = 'agent-harness';
/** The delegate principal of the dev service and the roles it may vouch for. */
export const DEV_SERVICE_PRINCIPAL = 'run-service';
export const DEV_DELEGABLE_ROLES = ['approver', 'refund_approver', 'operator', 'requester'];

export interface DevServiceFiles {
  readonly dir: string;
  readonly issuerKeyPath: string;
  readonly jwksPath: string;
  readonly delegateKeyPath: string;
  readonly configPath: string;
  readonly registryPath: string;
}

export function devServiceFiles(dataDir: string): DevServiceFiles {
  const dir = join(dataDir, 'service');
  return {
    dir,
    issuerKeyPath: join(dir, 'jwt-issuer.json'),
    jwksPath: join(dir, 'jwks.json'),
    delegateKeyPath: join(dir, 'run-service.json'),
    configPath: join(dir, 'service.json'),
    registryPath: join(dataDir, 'principals.json'),
  };
}

/**
 * Create whatever of the dev identity is missing; never replaces a key. Returns the files and what was
 * created now (the caller says so: a worker must restart to trust a newly added delegate).
 * @throws HarnessError `principals.invalid` when the existing registry does not validate.
 */
export async function ensureDevServiceFiles(
  dataDir: string,
): Promise<{ files: DevServiceFiles; created: string[] }> {
  const f = devServiceFiles(dataDir);
  const created: string[] = [];
  mkdirSync(f.dir, { recursive: true });
  if (!existsSync(f.issuerKeyPath)) {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const kid = `dev-issuer-${Date.now().toString(36)}`;
    const meta = { kid, alg: 'EdDSA', use: 'sig' };
    writeFileSync(
      f.issuerKeyPath,
      `${JSON.stringify({ ...(await exportJWK(privateKey)), ...meta }, null, 2)}\n`,
      {
        mode: 0o600,
        flag: 'wx',
      },
    );
    writeFileSync(
      f.jwksPath,
      `${JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), ...meta }] }, null, 2)}\n`,
    );
    created.push(f.issuerKeyPath, f.jwksPath);
  }
  let delegateEntry;
  if (!existsSync(f.delegateKeyPath)) {
    const generated = generateDecisionKey({
      principal: DEV_SERVICE_PRINCIPAL,
      keyId: `run-service-${Date.now().toString(36)}`,
      kind: 'service',
      roles: [],
    });
    writeFileSync(f.delegateKeyPath, `${JSON.stringify(generated.keyFile, null, 2)}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    delegateEntry = generated.principal;
    created.push(f.delegateKeyPath);
  }
  const registry = readRegistry(f.registryPath);
  if (delegateEntry !== undefined || !registry.principals.some((p) => p.id === DEV_SERVICE_PRINCIPAL)) {
    if (delegateEntry === undefined)
      throw new HarnessError(
        'principals.invalid',
        `${f.registryPath} does not trust ${DEV_SERVICE_PRINCIPAL}, and its key ${f.delegateKeyPath} exists: add its entry (harness keys) or remove the key file`,
      );
    const others = registry.principals.filter((p) => p.id !== DEV_SERVICE_PRINCIPAL);
    const next = PrincipalRegistrySchema.parse({
      version: 1,
      principals: [
        ...others,
        {
          ...delegateEntry,
          delegation: { roles: DEV_DELEGABLE_ROLES, kinds: ['operator', 'approver', 'customer'] },
        },
      ],
    });
    writeFileSync(f.registryPath, `${JSON.stringify(next, null, 2)}\n`);
    created.push(f.registryPath);
  }
  if (!existsSync(f.configPath)) {
    const config = {
      identity: { jwksFile: 'jwks.json', issuer: DEV_ISSUER, audience: DEV_AUDIENCE },
      delegateKeyFile: 'run-service.json',
      // Local only: starters may name any model route (production configs list theirs; default none).
      caps: { default: { modelRoutes: ['*'] } },
    };
    writeFileSync(f.configPath, `${JSON.stringify(config, null, 2)}\n`);
    created.push(f.configPath);
  }
  return { files: f, created };
}

function readRegistry(path: string): PrincipalRegistry {
  if (!existsSync(path)) return { version: 1, principals: [] };
  const parsed = PrincipalRegistrySchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success)
    throw new HarnessError('principals.invalid', `${path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export interface DevTokenClaims {
  readonly tenant: string;
  readonly user: string;
  readonly roles: readonly string[];
  readonly kind?: 'operator' | 'approver' | 'customer';
  /** Lifetime in seconds (default one hour). */
  readonly ttlSeconds?: number;
}

/**
 * A bearer token signed with the dev issuer key (`harness token`).
 * @throws HarnessError `service.dev_identity_missing` when `harness serve --dev` has not created it yet.
 */
export async function mintDevToken(dataDir: string, c: DevTokenClaims): Promise<string> {
  const f = devServiceFiles(dataDir);
  if (!existsSync(f.issuerKeyPath))
    throw new HarnessError(
      'service.dev_identity_missing',
      `no dev token issuer at ${f.issuerKeyPath}: run \`harness serve --dev\` once in this folder`,
    );
  const jwk = JSON.parse(readFileSync(f.issuerKeyPath, 'utf8')) as JWK & { kid: string };
  const key = await importJWK(jwk, 'EdDSA');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tenant: c.tenant, roles: [...c.roles], ...(c.kind ? { kind: c.kind } : {}) })
    .setProtectedHeader({ alg: 'EdDSA', kid: jwk.kid, typ: 'JWT' })
    .setSubject(c.user)
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (c.ttlSeconds ?? 3600))
    .sign(key);
}
