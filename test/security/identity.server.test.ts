import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStart } from '../../src/client/decisions/sign-start.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import {
  createHarnessFixture,
  refundRunInput,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { TEST_KEYS } from '../support/principals.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { testRunId } from '../support/run-id.js';
import { createTokenIssuer, serviceApi, startTestService, waitForRun } from '../support/run-service.js';
import { failureOf } from '../workflows/runner-support.js';

/** C2002's order in the seed data. */
const OTHERS_ORDER = 'ORD-2001';

/**
 * Who a run is for is a verified fact (issue 35; docs/authorization.md, "Who a run is for"): the
 * refund graph refunds only the verified requester's own order, an unsigned start is anonymous, and a
 * start token that does not verify starts nothing. Each attack pays nothing.
 */
describe('identity from the authenticated principal', { timeout: 180_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('security-identity');
  });
  afterAll(async () => {
    await h?.close();
  });

  const start = (workflowId: string, input: Parameters<typeof refundRunInput>[0], signed = true) =>
    startAgentRun(h.t.client, {
      taskQueue: h.taskQueue,
      workflowId,
      input: refundRunInput(input),
      ...(signed ? { signer: { key: TEST_KEYS.customer } } : {}),
    });

  it('C1001 signed in, asking for C2002’s order: refused before any write, whatever the task says', async () => {
    for (const task of [
      { message: `refund ${OTHERS_ORDER} please`, customerId: 'C2002' },
      { message: `refund ${OTHERS_ORDER} please` },
    ]) {
      const workflowId = testRunId('identity-others-order');
      const handle = await start(workflowId, { task, userId: 'C1001' });
      const result = (await handle.result()) as AgentRunResult & {
        output: { outcome: string; message: string };
      };
      expect(result.output.outcome).toBe('refused');
      expect(result.output.message).toMatch(/: (identity_mismatch|ownership_mismatch)/);
      const view = await handle.query<RunView>('state');
      expect(view.invocations.some((i) => i.tool === 'refund.create')).toBe(false);
      expect(view.pendingAction).toBeNull();
    }
  });

  it('the same customer for their own order gets as far as the approval, as the verified requester', async () => {
    const handle = await start(testRunId('identity-own-order'), {
      task: { message: 'refund ORD-1001 please' },
      userId: 'C1001',
    });
    await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    const view = await handle.query<RunView & { verified?: boolean }>('state');
    expect(view.status).toBe('awaiting_confirmation');
    expect(view).toMatchObject({ userId: 'C1001', verified: true });
    await handle.terminate('test done');
  });

  it('an unsigned start is anonymous: the refund graph asks nothing and pays nothing', async () => {
    const handle = await start(
      testRunId('identity-anonymous'),
      { task: { message: 'refund ORD-1001 please', customerId: 'C1001' }, userId: 'C1001' },
      false,
    );
    const result = (await handle.result()) as AgentRunResult & { output: { message: string } };
    expect(result.output.message).toContain(': identity_unverified');
    const view = await handle.query<RunView & { verified?: boolean }>('state');
    expect(view.verified).toBe(false);
    expect(view.userId).toBeUndefined();
  });

  it('a start token that does not verify starts nothing: another workflow, a changed input, a forged key', async () => {
    const input = refundRunInput({ task: { message: 'refund ORD-1001 please' }, userId: 'C1001' });
    const cases: [string, Record<string, unknown>][] = [
      ['start.wrong_workflow', signStart({ key: TEST_KEYS.customer }, 'another-workflow', input)],
      [
        'start.input_mismatch',
        {
          ...signStart({ key: TEST_KEYS.customer }, 'X', input),
          policy: { name: 'refund.rules', version: 'v1' },
        },
      ],
      [
        'start.unknown_key',
        signStart({ key: TEST_KEYS.mallory }, 'X', { ...input, userId: 'mallory@example.com' }),
      ],
    ];
    for (const [code, forged] of cases) {
      const workflowId = testRunId('identity-forged');
      // Re-sign for this workflow id where the case is not about the workflow.
      const args =
        code === 'start.wrong_workflow'
          ? forged
          : code === 'start.unknown_key'
            ? signStart({ key: TEST_KEYS.mallory }, workflowId, { ...input, userId: 'mallory@example.com' })
            : {
                ...signStart({ key: TEST_KEYS.customer }, workflowId, input),
                policy: { name: 'refund.rules', version: 'v1' },
              };
      const handle = await h.t.client.workflow.start('agentRun', {
        taskQueue: h.taskQueue,
        workflowId,
        args: [args],
      });
      const failure = await failureOf(handle);
      expect(failure).toMatchObject({ type: 'run.start_token_refused', nonRetryable: true });
      expect(failure.message).toContain(code);
    }
  });

  it('judges a start token at the time the server accepted the start, not at the first task (agent-run-start-token-accepted-v1)', async () => {
    // A token valid for 3 s, and a start whose first workflow task comes 6 s later (startDelay): the
    // server accepted it while the token was valid, so the run starts as the verified requester.
    const workflowId = testRunId('identity-late-first-task');
    const input = refundRunInput({ task: { message: 'refund ORD-1001 please' }, userId: 'C1001' });
    const handle = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [signStart({ key: TEST_KEYS.customer, ttlSeconds: 3 }, workflowId, input)],
      startDelay: '6 seconds',
    });
    await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
    expect(await handle.query<RunView & { verified?: boolean }>('state')).toMatchObject({
      userId: 'C1001',
      verified: true,
    });
    await handle.terminate('test done');
    await recordFixtureIfAsked(h.t.client, workflowId, 'refund-graph-start-token-accepted-v1');
  });

  it('over the run service: customer C1001 filing for C2002’s order is refused and pays nothing', async () => {
    const issuer = await createTokenIssuer();
    let service: { app: FastifyInstance; url: string } | undefined;
    try {
      service = await startTestService(h, issuer);
      const api = serviceApi(() => service!.url);
      const tenant = `ident${Date.now().toString(36)}`;
      const alice = await issuer.token({ sub: 'C1001', tenant, roles: ['requester'], kind: 'customer' });
      const ops = await issuer.token({ sub: 'ops@shop', tenant, roles: ['operator'], kind: 'operator' });
      const started = await api(alice, 'POST', '/v1/runs', {
        profile: 'refund.graph',
        task: { message: `refund ${OTHERS_ORDER} please`, customerId: 'C2002' },
        modelRoute: 'scripted/refund',
      });
      expect(started.status).toBe(201);
      const run = await waitForRun(
        api,
        ops,
        started.body.runId!,
        (r) => r.status === 'succeeded' || r.status === 'failed',
      );
      expect(run).toMatchObject({ status: 'succeeded', pendingAction: null });
      expect(JSON.stringify(run)).toContain('identity_mismatch');
    } finally {
      await service?.app.close();
    }
  });
});
