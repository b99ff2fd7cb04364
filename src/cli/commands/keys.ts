import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  PRINCIPAL_KINDS,
  PrincipalRegistrySchema,
  type Principal,
  type PrincipalKind,
  type PrincipalRegistry,
} from '../../contract/principals.js';
import { generateDecisionKey } from '../../client/decisions/decision-key.js';
import { EXIT, usageError } from '../errors.js';
import type { Output } from '../output.js';

export interface KeysCreateOptions {
  readonly principal: string;
  readonly keyId?: string;
  readonly kind?: string;
  readonly role?: string[];
  readonly out: string;
  readonly registry?: string;
}

/** Add a principal (or, for a known principal, its new key: rotation) to a registry. */
export function addToRegistry(registry: PrincipalRegistry, entry: Principal): PrincipalRegistry {
  const existing = registry.principals.find((p) => p.id === entry.id);
  const principals = existing
    ? registry.principals.map((p) => (p.id === entry.id ? { ...p, keys: [...p.keys, ...entry.keys] } : p))
    : [...registry.principals, entry];
  const next = { version: 1 as const, principals };
  const parsed = PrincipalRegistrySchema.safeParse(next);
  if (!parsed.success)
    throw usageError(`--registry: the result is not a valid registry: ${parsed.error.issues[0]?.message}`, {
      option: '--registry',
    });
  return parsed.data;
}

function readRegistry(path: string): PrincipalRegistry {
  if (!existsSync(path)) return { version: 1, principals: [] };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw usageError(`--registry: ${path} is not JSON`, { option: '--registry' });
  }
  const parsed = PrincipalRegistrySchema.safeParse(value);
  if (!parsed.success)
    throw usageError(`--registry: ${path} is not a valid registry: ${parsed.error.issues[0]?.message}`, {
      option: '--registry',
    });
  return parsed.data;
}

/**
 * `harness keys create`: a new Ed25519 key pair. The private key goes to `--out` (mode 0600, never
 * overwritten); the registry entry is printed, and added to `--registry` when given (a known principal
 * gets the key added beside its others: rotation). Workers read the registry at start.
 */
export function keysCreateCommand(o: KeysCreateOptions, out: Output): number {
  const kind = (o.kind ?? 'approver') as PrincipalKind;
  if (!PRINCIPAL_KINDS.includes(kind))
    throw usageError(`--kind: one of ${PRINCIPAL_KINDS.join(', ')}`, { option: '--kind' });
  if (existsSync(o.out))
    throw usageError(`--out: ${o.out} exists; a key file is never overwritten`, { option: '--out' });
  const keyId =
    o.keyId ??
    `${o.principal.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40)}-${new Date().toISOString().slice(0, 10)}`;
  let created;
  try {
    created = generateDecisionKey({
      principal: o.principal,
      keyId,
      kind,
      roles: o.role ?? (kind === 'customer' ? [] : ['approver']),
    });
  } catch (err) {
    throw usageError(`invalid principal or key id: ${(err as Error).message}`, { option: '--principal' });
  }
  const registry = o.registry ? addToRegistry(readRegistry(o.registry), created.principal) : undefined;
  writeFileSync(o.out, `${JSON.stringify(created.keyFile, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  if (o.registry && registry) writeFileSync(o.registry, `${JSON.stringify(registry, null, 2)}\n`);
  out.data({ keyFile: o.out, registry: o.registry ?? null, entry: created.principal });
  out.line(`wrote the private key of ${created.principal.id} (key ${keyId}) to ${o.out}; keep it private`);
  if (o.registry)
    out.line(`added it to ${o.registry}; restart the workers that read it (HARNESS_PRINCIPALS)`);
  else
    out.line(
      `add this entry to the principal registry (HARNESS_PRINCIPALS):\n${JSON.stringify(created.principal, null, 2)}`,
    );
  return EXIT.ok;
}
