import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { showcaseDefinition } from '../../../apps/showcase/workflow/definition.js';
import { composeAgentRun } from '../../../src/workflows/temporal/agent-run-definition.js';
import { createRunService } from '../../../src/service/run-service.js';
import type { EvidenceStore } from '../../../src/activities/store/index.js';
import { TEST_KEYS } from '../../support/principals.js';
import { createTokenIssuer, testServiceConfig } from '../../support/run-service.js';

/**
 * A server error of the run service is one JSON log line with its cause (and the cause's cause),
 * under the request id the caller gets in the `x-request-id` header and the body; the body says no
 * more than "internal error".
 */
describe('the run service log', () => {
  it('logs a 500 with its causes under the request id of the response', async () => {
    const root = new Error('14 UNAVAILABLE: connection refused');
    const client = {
      options: { namespace: 'default' },
      workflow: {
        getHandle: () => ({
          describe: () => Promise.reject(new Error('describe failed', { cause: root })),
        }),
      },
    } as unknown as Client;
    const issuer = await createTokenIssuer();
    const lines: string[] = [];
    const app = createRunService({
      client,
      store: {} as EvidenceStore,
      composition: composeAgentRun(showcaseDefinition),
      taskQueue: 'q',
      config: testServiceConfig(),
      jwks: issuer.jwks,
      delegateKey: TEST_KEYS.service,
      searchAttributes: 'skip',
      log: { stream: { write: (l) => lines.push(l) } },
    });
    const token = await issuer.token({ sub: 'ops', tenant: 'acme', roles: ['operator'], kind: 'operator' });
    const res = await app.inject({
      method: 'GET',
      url: '/v1/runs/run-1',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(500);
    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const body = res.json<{ error: { code: string; message: string; requestId: string } }>();
    expect(body.error).toMatchObject({ code: 'service.internal_error', requestId });
    expect(body.error.message).not.toContain('UNAVAILABLE');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as {
      level: number;
      requestId: string;
      statusCode: number;
      url: string;
      err: { message: string; stack: string };
    };
    expect(line).toMatchObject({ level: 50, requestId, statusCode: 500, url: '/v1/runs/run-1' });
    expect(line.err.message).toContain('describe failed');
    expect(line.err.message).toContain('14 UNAVAILABLE: connection refused');
    // Any answer carries its id; a 4xx is not a server error: not logged at the default level.
    const open = await app.inject({ method: 'GET', url: '/v1/runs' });
    expect(open.statusCode).toBe(401);
    expect(open.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(open.headers['x-request-id']).not.toBe(requestId);
    expect(lines).toHaveLength(1);
    await app.close();
  });
});
