import { WorkflowUpdateRPCTimeoutOrCancelledError, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { showcaseDefinition } from '../../../apps/showcase/workflow/definition.js';
import { composeAgentRun } from '../../../src/workflows/temporal/agent-run-definition.js';
import { createRunService } from '../../../src/service/run-service.js';
import { AgentTenantKey, AgentUserKey } from '../../../src/contract/visibility.js';
import type { EvidenceStore } from '../../../src/activities/store/index.js';
import { TEST_KEYS } from '../../support/principals.js';
import { createTokenIssuer, testServiceConfig } from '../../support/run-service.js';

/**
 * A decision whose `decide` update runs out of its RPC deadline (found by the concurrency bench, 200
 * decisions at once on a loaded machine: the run had taken it) is an unknown outcome: 504
 * `decision.outcome_unknown` with the request id, never a 500 that reads as "not taken". The stand-in
 * client answers describe and the state query, and fails the update as the SDK does past the deadline.
 */
describe('a decision past its deadline', () => {
  it('answers 504 decision.outcome_unknown in the one error shape', async () => {
    const sa = new Map<unknown, string>([
      [AgentTenantKey, 'acme'],
      [AgentUserKey, 'C1001'],
    ]);
    let updates = 0;
    const client = {
      options: { namespace: 'default' },
      workflow: {
        getHandle: (runId: string) => ({
          describe: () =>
            Promise.resolve({
              type: 'agentRun',
              status: { name: 'RUNNING' },
              memo: {},
              typedSearchAttributes: sa,
            }),
          query: () =>
            Promise.resolve({
              runId,
              firstExecutionRunId: 'r1',
              status: 'running',
              pendingAction: null,
              decisions: [],
            }),
          executeUpdate: () => {
            updates += 1;
            return Promise.reject(
              new WorkflowUpdateRPCTimeoutOrCancelledError('context deadline exceeded', {
                cause: new Error('4 DEADLINE_EXCEEDED'),
              }),
            );
          },
        }),
      },
    } as unknown as Client;
    const issuer = await createTokenIssuer();
    const app = createRunService({
      client,
      store: {} as EvidenceStore,
      composition: composeAgentRun(showcaseDefinition),
      taskQueue: 'q',
      config: testServiceConfig(),
      jwks: issuer.jwks,
      delegateKey: TEST_KEYS.service,
      searchAttributes: 'skip',
      log: { level: 'silent' },
    });
    try {
      const token = await issuer.token({ sub: 'ops', tenant: 'acme', roles: ['operator'], kind: 'operator' });
      const res = await app.inject({
        method: 'POST',
        url: '/v1/runs/run-1/cancel',
        headers: { authorization: `Bearer ${token}` },
        payload: { reason: 'stop' },
      });
      expect(updates).toBe(1);
      expect(res.statusCode).toBe(504);
      expect(res.json()).toEqual({
        error: {
          code: 'decision.outcome_unknown',
          message: expect.stringContaining('may have been taken') as unknown,
          requestId: res.headers['x-request-id'],
        },
      });
    } finally {
      await app.close();
    }
  });
});
