import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { externalTemporal } from '../../../src/devserver/external-target.js';

/** TEMPORAL_ADDRESS and Temporal's standard environment configuration, read once for every part of the harness. */
describe('externalTemporal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'external-target-'));
  for (const f of ['ca.pem', 'client.pem', 'client-key.pem']) writeFileSync(join(dir, f), `${f}\n`);

  it('is undefined without TEMPORAL_ADDRESS', () => {
    expect(externalTemporal({ TEMPORAL_NAMESPACE: 'agents' })).toBeUndefined();
  });

  it('takes the namespace, TLS files and API key from the environment', () => {
    const target = externalTemporal({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'agents-prod',
      TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client-key.pem'),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'ca.pem'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.harness.test',
      TEMPORAL_API_KEY: 'key-1',
    });
    expect(target?.namespace).toBe('agents-prod');
    expect(target?.connectionOptions.address).toBe('temporal.internal:7233');
    expect(target?.connectionOptions.apiKey).toBe('key-1');
    const tls = target?.connectionOptions.tls as {
      serverNameOverride?: string;
      serverRootCACertificate?: Uint8Array;
      clientCertPair?: { crt: Uint8Array; key: Uint8Array };
    };
    expect(tls.serverNameOverride).toBe('temporal.harness.test');
    expect(Buffer.from(tls.serverRootCACertificate ?? []).toString()).toBe('ca.pem\n');
    expect(Buffer.from(tls.clientCertPair?.crt ?? []).toString()).toBe('client.pem\n');
  });

  it("takes the namespace of the config file's profile (a worker process used to ignore it)", () => {
    const file = join(dir, 'temporal.toml');
    writeFileSync(
      file,
      '[profile.prod]\naddress = "temporal.internal:7233"\nnamespace = "agents-from-profile"\n',
    );
    const target = externalTemporal({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'prod',
    });
    expect(target?.namespace).toBe('agents-from-profile');
  });
});
