import { readFileSync } from 'node:fs';
import { AttestationRegistrySchema, type AttestationRegistry } from '../contract/chain-head.js';
import { usageError } from './errors.js';

/**
 * The attestation key registry of `file`, else of `HARNESS_ATTESTATION_KEYS`, else `undefined`
 * (docs/evidence-chain.md, "Signed chain heads").
 * @throws cli.usage when the file cannot be read, is not JSON or not a registry.
 */
export function readAttestationRegistry(file: string | undefined): AttestationRegistry | undefined {
  const path = file ?? process.env.HARNESS_ATTESTATION_KEYS;
  if (path === undefined || path === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw usageError(`cannot read the attestation key registry ${path}: ${(err as Error).message}`);
  }
  const parsed = AttestationRegistrySchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw usageError(
      `${path} is not an attestation key registry: ${first?.path.join('.') || '/'}: ${first?.message}`,
    );
  }
  return parsed.data;
}
