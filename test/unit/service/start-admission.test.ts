import type { Client } from '@temporalio/client';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { showcaseDefinition } from '../../../apps/showcase/workflow/definition.js';
import { composeAgentRun } from '../../../src/workflows/temporal/agent-run-definition.js';
import { createRunService } from '../../../src/service/run-service.js';
import { parseServiceConfig } from '../../../src/service/service-config.js';
import type { EvidenceStore } from '../../../src/activities/store/index.js';
import { TEST_KEYS } from '../../support/principals.js';

/**
 * Start admission of the run service, with a stand-in Temporal client whose visibility count answers
 * only when the test says so: the rate buckets see requests as they arrive, not when a slow count
 * query returns (found by the service load test, bench/tools/service-load.ts: starts sent at exactly
 * the configured rate were refused when the count query bunched them).
 */
async function serviceWithSlowCount(limits: { perSecond: number; burst: number }) {
  const counts: (() => void)[] = [];
  const started: string[] = [];
  const client = {
    options: { namespace: 'default' },
    workflow: {
      count: () => new Promise<{ count: number }>((res) => counts.push(() => res({ count: 0 }))),
      start: (_type: string, o: { workflowId: string }) => {
        started.push(o.workflowId);
        return Promise.resolve({ workflowId: o.workflowId });
      },
    },
  } as unknown as Client;
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const app = createRunService({
    client,
    store: {} as EvidenceStore,
    composition: composeAgentRun(showcaseDefinition),
    taskQueue: 'q',
    config: parseServiceConfig({
      identity: { jwksFile: 'unused', issuer: 'https://id.test.invalid/', audience: 'harness' },
      delegateKeyFile: 'unused',
      limits: { startsPerTenant: limits, startsPerUser: { perSecond: 1000, burst: 1000 } },
    }),
    jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'EdDSA' }] },
    delegateKey: TEST_KEYS.service,
    // A stand-in client: no operator service to check search attributes with.
    searchAttributes: 'skip',
  });
  const token = await new SignJWT({ tenant: 'acme', roles: ['requester'] })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'k' })
    .setSubject('C1001')
    .setIssuer('https://id.test.invalid/')
    .setAudience('harness')
    .setExpirationTime('5m')
    .sign(privateKey);
  const start = () =>
    app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: { authorization: `Bearer ${token}` },
      payload: { profile: 'support.answer', task: { message: 'hello' } },
    });
  const countsAsked = async (n: number) => {
    for (let i = 0; i < 200 && counts.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    expect(counts.length).toBe(n);
  };
  return { app, start, counts, countsAsked, started };
}

describe('run service start admission', () => {
  it('admits starts sent at the configured rate even when the count query answers them all at once', async () => {
    const s = await serviceWithSlowCount({ perSecond: 10, burst: 1 });
    try {
      const first = s.start();
      await s.countsAsked(2); // the tenant's and the user's active runs
      // The second start arrives 150 ms later, after the bucket has refilled (10 per second).
      await new Promise((r) => setTimeout(r, 150));
      const second = s.start();
      // It shares the counts still in flight (active-run-counts.ts): no third and fourth query.
      await new Promise((r) => setTimeout(r, 50));
      expect(s.counts).toHaveLength(2);
      for (const answer of s.counts) answer();
      expect([(await first).statusCode, (await second).statusCode]).toEqual([201, 201]);
      expect(s.started).toHaveLength(2);
    } finally {
      await s.app.close();
    }
  });

  it('refuses a start over the rate with 429 before asking Temporal anything', async () => {
    const s = await serviceWithSlowCount({ perSecond: 0.01, burst: 1 });
    try {
      const first = s.start();
      await s.countsAsked(2);
      const refused = await s.start();
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: { code: 'rate.starts_tenant' } });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(s.counts).toHaveLength(2);
      for (const answer of s.counts) answer();
      expect((await first).statusCode).toBe(201);
    } finally {
      await s.app.close();
    }
  });
});
