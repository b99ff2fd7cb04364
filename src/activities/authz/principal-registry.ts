import { readFileSync } from 'node:fs';
import { HarnessError } from '../../contract/errors.js';
import { PrincipalRegistrySchema, type PrincipalRegistry } from '../../contract/principals.js';
import { sha256Digest } from '../digest.js';

/** Largest registry file read (bytes). */
export const MAX_REGISTRY_BYTES = 1024 * 1024;

/** A validated registry and the digest runs record. */
export interface LoadedPrincipals {
  readonly registry: PrincipalRegistry;
  readonly digest: string;
  /** Where it came from (a path, `inline`, or `none`), for logs. */
  readonly source: string;
}

/** No principals: every signed decision is refused (`decision.unknown_key`). */
export const NO_PRINCIPALS: LoadedPrincipals = principalsFrom({ version: 1, principals: [] }, 'none');

/**
 * Validate a registry object and compute its digest (sha256 of its canonical JSON).
 * @throws HarnessError `principals.invalid` naming the first problems.
 */
export function principalsFrom(value: unknown, source: string): LoadedPrincipals {
  const parsed = PrincipalRegistrySchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
    throw new HarnessError('principals.invalid', `principal registry ${source}: ${issues.join('; ')}`, {
      source,
      issues,
    });
  }
  return { registry: parsed.data, digest: sha256Digest(parsed.data), source };
}

/**
 * Read and validate the principal registry file (docs/authorization.md). The worker reads it once at
 * start; a changed file takes effect when the worker restarts (roll workers to rotate keys).
 * @throws HarnessError `principals.unreadable` when the file cannot be read or is over 1 MiB,
 *   `principals.invalid` when it is not JSON or not a valid registry.
 */
export function loadPrincipalRegistry(path: string): LoadedPrincipals {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new HarnessError(
      'principals.unreadable',
      `cannot read the principal registry ${path}: ${(err as Error).message}`,
      {
        path,
      },
    );
  }
  if (Buffer.byteLength(text) > MAX_REGISTRY_BYTES)
    throw new HarnessError('principals.unreadable', `the principal registry ${path} is over 1 MiB`, { path });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HarnessError(
      'principals.invalid',
      `principal registry ${path}: not JSON (${(err as Error).message})`,
      {
        path,
      },
    );
  }
  return principalsFrom(value, path);
}

/**
 * The registry a worker uses: `principals` when given (an object or a file path), else the file named
 * by `HARNESS_PRINCIPALS`, else none (no decision can be accepted; the worker says so at start).
 */
export function resolvePrincipals(
  principals: PrincipalRegistry | string | undefined,
  env: NodeJS.ProcessEnv,
): LoadedPrincipals {
  if (typeof principals === 'string') return loadPrincipalRegistry(principals);
  if (principals !== undefined) return principalsFrom(principals, 'inline');
  const path = env.HARNESS_PRINCIPALS;
  return path ? loadPrincipalRegistry(path) : NO_PRINCIPALS;
}
