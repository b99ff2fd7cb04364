import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../src/contract/errors.js';
import { ensureSearchAttributes } from '../../src/devserver/search-attributes.js';
import { issueClientCertificate } from './certs.js';
import { connectTier, realServer, registerNamespace, tier, type TierConnections } from './tier.js';

/**
 * The tier's server checks both a client certificate (mTLS, requireClientAuth) and an API key (a JWT
 * against the JWKS the setup serves; default claim mapper and authorizer). What is refused, and the
 * harness's message when a worker's key may not register the search attributes.
 */
describe.skipIf(!realServer())('real server: mTLS and API keys are enforced', () => {
  let operator: TierConnections;
  beforeAll(async () => {
    operator = await connectTier('auth-operator', undefined, tier(), 'system');
  });
  afterAll(async () => {
    await operator?.close();
  });

  function tlsAs(commonName: string) {
    const client = issueClientCertificate(tier().certDir, commonName);
    return {
      serverNameOverride: tier().serverName,
      serverRootCACertificate: readFileSync(join(tier().certDir, 'ca.pem')),
      clientCertPair: { crt: readFileSync(client.cert), key: readFileSync(client.key) },
    };
  }

  it('a client without a certificate is refused at the TLS handshake', async () => {
    const err = await Connection.connect({
      address: tier().address,
      tls: {
        serverNameOverride: tier().serverName,
        serverRootCACertificate: readFileSync(join(tier().certDir, 'ca.pem')),
      },
      connectTimeout: '3s',
    })
      .then((c) =>
        c.workflowService.describeNamespace({ namespace: tier().namespace }).finally(() => c.close()),
      )
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(err, 'no certificate, no access').toBeInstanceOf(Error);
  });

  it('a certificate without an API key, or with a key for another namespace, is denied', async () => {
    const bare = await Connection.connect({ address: tier().address, tls: tlsAs('no-key') });
    try {
      const err = await bare.workflowService
        .describeNamespace({ namespace: tier().namespace })
        .catch((e: unknown) => e);
      expect((err as { code?: number }).code).toBe(7); // PERMISSION_DENIED
    } finally {
      await bare.close();
    }
    const other = await connectTier('other-namespace-key', 'some-other-namespace');
    try {
      const err = await other.connection.workflowService
        .describeNamespace({ namespace: tier().namespace })
        .catch((e: unknown) => e);
      expect((err as { code?: number }).code).toBe(7);
    } finally {
      await other.close();
    }
  });

  it('a worker whose key may only write cannot register the search attributes: it names them and the commands', async () => {
    const namespace = `fresh-auth-${Date.now().toString(36)}`;
    await registerNamespace(operator.connection, namespace);
    const worker = await connectTier('write-only-worker', namespace);
    try {
      const err = await ensureSearchAttributes(worker.nativeConnection, namespace).catch((e: unknown) => e);
      expect(isHarnessError(err, 'temporal.search_attributes_missing'), String(err)).toBe(true);
      const message = (err as Error).message;
      expect(message).toContain('could not register them (permission denied');
      expect(message).toContain(
        `temporal operator search-attribute create --namespace ${namespace} --name AgentStatus --type Keyword`,
      );
    } finally {
      await worker.close();
    }
  });
});
