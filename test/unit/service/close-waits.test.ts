import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { showcaseDefinition } from '../../../apps/showcase/workflow/definition.js';
import { composeAgentRun } from '../../../src/workflows/temporal/agent-run-definition.js';
import { createRunService } from '../../../src/service/run-service.js';
import type { EvidenceStore } from '../../../src/activities/store/index.js';
import { TEST_KEYS } from '../../support/principals.js';
import { createTokenIssuer, testServiceConfig } from '../../support/run-service.js';

/**
 * Closing the run service waits for handlers still running, also when their caller went away: the
 * caller may close the Temporal connection right after (a call still in its client's retry backoff
 * would otherwise throw "Channel has been shut down" from a timer, an uncaught exception).
 */
describe('closing the run service', () => {
  it('waits for a handler whose caller went away to finish its Temporal call', async () => {
    let finished = false;
    // A Temporal call that takes a while (as one in retry backoff does).
    const client = {
      workflowService: {
        getSystemInfo: () =>
          new Promise((resolve) =>
            setTimeout(() => {
              finished = true;
              resolve({});
            }, 800),
          ),
      },
    } as unknown as Client;
    const store = { listRuns: () => Promise.resolve([]) } as unknown as EvidenceStore;
    const issuer = await createTokenIssuer();
    const app = createRunService({
      client,
      store,
      composition: composeAgentRun(showcaseDefinition),
      taskQueue: 'unused',
      config: testServiceConfig(),
      jwks: issuer.jwks,
      delegateKey: TEST_KEYS.service,
      // A stand-in client: no operator service to check search attributes with.
      searchAttributes: 'skip',
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const caller = new AbortController();
    const request = fetch(`${url}/readyz`, { signal: caller.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    caller.abort();
    await request;
    expect(finished).toBe(false);
    await app.close();
    expect(finished).toBe(true);
  });
});
