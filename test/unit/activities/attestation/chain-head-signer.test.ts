import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAttestation } from '../../../../src/activities/attestation/chain-head-signer.js';
import { DEFAULT_HEAD_INTERVAL } from '../../../../src/contract/chain-head.js';

function keyFile(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const path = join(mkdtempSync(join(tmpdir(), 'attestation-')), 'key.json');
  writeFileSync(
    path,
    JSON.stringify({ keyId: 'k1', privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) }),
  );
  return path;
}

describe('resolveAttestation: the interval of `every` heads (HARNESS_ATTESTATION_EVERY)', () => {
  it('defaults to 100 and takes a whole number in bounds', () => {
    const path = keyFile();
    expect(resolveAttestation({ HARNESS_ATTESTATION_KEY: path })?.everyEvents).toBe(DEFAULT_HEAD_INTERVAL);
    expect(
      resolveAttestation({ HARNESS_ATTESTATION_KEY: path, HARNESS_ATTESTATION_EVERY: '7' })?.everyEvents,
    ).toBe(7);
  });

  it('refuses an interval out of bounds or not a whole number (the worker does not start)', () => {
    const path = keyFile();
    for (const bad of ['0', '10001', '2.5', 'often'])
      expect(() =>
        resolveAttestation({ HARNESS_ATTESTATION_KEY: path, HARNESS_ATTESTATION_EVERY: bad }),
      ).toThrow(
        expect.objectContaining({
          code: 'attestation.unreadable',
          message: expect.stringContaining('HARNESS_ATTESTATION_EVERY') as string,
        }),
      );
  });
});
