import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  generateDecisionKey,
  loadDecisionKey,
  PrincipalRegistrySchema,
  publicKeyOf,
  type Principal,
  type PrincipalKind,
  type PrincipalRegistry,
} from '../../src/index.js';
import { SEED_CUSTOMER_ID } from './business/seed-data.js';

/** The demo approver's roles: approves refunds, reconciles, cancels. */
const DEMO_ROLES = ['approver', 'refund_approver', 'operator'] as const;

/** The main job's approver: decides the demo refund. */
export const DEMO_APPROVER = 'demo-approver@main-job';
/** The main job's customer: requests the demo refund (the seed customer, who owns the demo order). */
export const DEMO_CUSTOMER = SEED_CUSTOMER_ID;

/** A principal the main job keeps a local key for. */
interface DemoPrincipal {
  readonly id: string;
  readonly kind: PrincipalKind;
  readonly roles: readonly string[];
  /** The key file's name under `.data/keys/` (without `.json`), and its key id's prefix. */
  readonly file: string;
}

const APPROVER: DemoPrincipal = {
  id: DEMO_APPROVER,
  kind: 'operator',
  roles: DEMO_ROLES,
  file: 'demo-approver',
};
const CUSTOMER: DemoPrincipal = { id: DEMO_CUSTOMER, kind: 'customer', roles: [], file: 'demo-customer' };

/** Where a demo key and the registry live (the git-ignored data folder). */
export function demoPrincipalPaths(
  dataDir = resolve(process.cwd(), '.data'),
  file = APPROVER.file,
): { keyPath: string; registryPath: string } {
  return { keyPath: join(dataDir, 'keys', `${file}.json`), registryPath: join(dataDir, 'principals.json') };
}

export interface DemoKey {
  readonly keyPath: string;
  readonly registryPath: string;
  /** The key file or the registry's entry for it was written now. */
  readonly created: boolean;
}

function readRegistry(path: string): PrincipalRegistry {
  if (!existsSync(path)) return { version: 1, principals: [] };
  return PrincipalRegistrySchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/**
 * A local demo principal: on first use an Ed25519 key under `.data/keys/<file>.json` (mode 0600,
 * never replaced), and its entry in `.data/principals.json`. Whoever else the registry trusts (the
 * other demo principal, the run service's delegate, docs/api.md) is kept; an entry of the same id keeps
 * its other keys.
 */
function ensureDemoPrincipal(p: DemoPrincipal, dataDir?: string): DemoKey {
  const paths = demoPrincipalPaths(dataDir, p.file);
  let created = false;
  let key;
  if (existsSync(paths.keyPath)) {
    const loaded = loadDecisionKey(paths.keyPath);
    key = { id: loaded.keyId, alg: 'Ed25519' as const, publicKey: publicKeyOf(loaded.privateKey) };
  } else {
    const generated = generateDecisionKey({
      principal: p.id,
      keyId: `${p.file}-${Date.now().toString(36)}`,
      kind: p.kind,
      roles: [...p.roles],
    });
    mkdirSync(join(paths.keyPath, '..'), { recursive: true });
    writeFileSync(paths.keyPath, `${JSON.stringify(generated.keyFile, null, 2)}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    key = generated.principal.keys[0]!;
    created = true;
  }
  const registry = readRegistry(paths.registryPath);
  const listed = registry.principals.find((e) => e.id === p.id);
  if (!created && listed?.keys.some((k) => k.id === key.id && k.publicKey === key.publicKey))
    return { ...paths, created: false };
  const entry: Principal = {
    ...(listed ?? {}),
    id: p.id,
    kind: p.kind,
    roles: [...p.roles],
    keys: [...(listed?.keys.filter((k) => k.id !== key.id) ?? []), key].slice(-5),
  };
  const next: PrincipalRegistry = {
    version: 1,
    principals: [...registry.principals.filter((e) => e.id !== p.id), entry],
  };
  writeFileSync(paths.registryPath, `${JSON.stringify(next, null, 2)}\n`);
  return { ...paths, created: true };
}

/**
 * The local demo approver (docs/authorization.md): on first use, an Ed25519 key under
 * `.data/keys/demo-approver.json` (mode 0600) and a registry `.data/principals.json` that trusts it as
 * a refund approver and operator. Returns the paths and whether they were created now.
 */
export function ensureDemoApprover(dataDir?: string): DemoKey {
  return ensureDemoPrincipal(APPROVER, dataDir);
}

/**
 * The local demo customer ({@link DEMO_CUSTOMER}, the owner of the demo order): on first use, an
 * Ed25519 key under `.data/keys/demo-customer.json` (mode 0600), trusted as a `customer` by
 * `.data/principals.json`. The main job signs its run's start with it, so the run is verifiably the
 * customer's (docs/authorization.md, "Who a run is for").
 */
export function ensureDemoCustomer(dataDir?: string): DemoKey {
  return ensureDemoPrincipal(CUSTOMER, dataDir);
}
