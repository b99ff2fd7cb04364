import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  generateDecisionKey,
  loadDecisionKey,
  PrincipalRegistrySchema,
  publicKeyOf,
  type PrincipalRegistry,
} from '../../src/index.js';

/** The demo approver's roles: approves refunds, reconciles, cancels. */
const DEMO_ROLES = ['approver', 'refund_approver', 'operator'] as const;

/** The main job's approver: decides the demo refund. */
export const DEMO_APPROVER = 'demo-approver@main-job';

/** Where the demo key and registry live (the git-ignored data folder). */
export function demoPrincipalPaths(dataDir = resolve(process.cwd(), '.data')): {
  keyPath: string;
  registryPath: string;
} {
  return {
    keyPath: join(dataDir, 'keys', 'demo-approver.json'),
    registryPath: join(dataDir, 'principals.json'),
  };
}

/**
 * The local demo approver (docs/authorization.md): on first use, an Ed25519 key under
 * `.data/keys/demo-approver.json` (mode 0600) and a registry `.data/principals.json` that trusts it as
 * a refund approver and operator. Returns the paths and whether they were created now.
 */
export function ensureDemoApprover(dataDir?: string): {
  keyPath: string;
  registryPath: string;
  created: boolean;
} {
  const paths = demoPrincipalPaths(dataDir);
  if (existsSync(paths.keyPath) && existsSync(paths.registryPath)) return { ...paths, created: false };
  if (existsSync(paths.keyPath)) {
    // The key is there and the registry is not: trust the existing key again (never replace a key).
    const key = loadDecisionKey(paths.keyPath);
    const registry: PrincipalRegistry = {
      version: 1,
      principals: [
        {
          id: key.principal,
          kind: 'operator',
          roles: [...DEMO_ROLES],
          keys: [{ id: key.keyId, alg: 'Ed25519', publicKey: publicKeyOf(key.privateKey) }],
        },
      ],
    };
    writeFileSync(paths.registryPath, `${JSON.stringify(registry, null, 2)}\n`);
    return { ...paths, created: true };
  }
  const { keyFile, principal } = generateDecisionKey({
    principal: DEMO_APPROVER,
    keyId: `demo-approver-${Date.now().toString(36)}`,
    kind: 'operator',
    roles: [...DEMO_ROLES],
  });
  mkdirSync(join(paths.keyPath, '..'), { recursive: true });
  writeFileSync(paths.keyPath, `${JSON.stringify(keyFile, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  // Keep whoever else the registry already trusts (e.g. the run service's delegate, docs/api.md).
  const others = existsSync(paths.registryPath)
    ? PrincipalRegistrySchema.parse(JSON.parse(readFileSync(paths.registryPath, 'utf8'))).principals.filter(
        (p) => p.id !== principal.id,
      )
    : [];
  const registry: PrincipalRegistry = { version: 1, principals: [...others, principal] };
  writeFileSync(paths.registryPath, `${JSON.stringify(registry, null, 2)}\n`);
  return { ...paths, created: true };
}
