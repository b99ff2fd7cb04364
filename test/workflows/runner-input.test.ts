import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarnessFixture,
  historyEventTypes,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { failureOf } from './runner-support.js';
import { testRunId } from '../support/run-id.js';

describe('agentRun refuses bad input at once (real server)', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('runner-input');
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Starts agentRun directly, bypassing the client-side validation of startAgentRun. */
  function startRaw(input: unknown) {
    return h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: `runner-input-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      args: [input],
    });
  }

  async function expectFailedAtOnce(handle: WorkflowHandle, type: string) {
    const failure = await failureOf(handle);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
    const history = await historyEventTypes(handle);
    expect(history.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
    expect(history).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    expect(history.filter((t) => t === 'EVENT_TYPE_WORKFLOW_TASK_STARTED')).toHaveLength(1);
    expect(history).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    return failure;
  }

  it('invalid workflow input fails the execution with run.invalid_input (no retry loop)', async () => {
    const failure = await expectFailedAtOnce(
      await startRaw({ schemaVersion: 2, task: 'not an object' }),
      'run.invalid_input',
    );
    expect(failure.message).toContain('schemaVersion');
  });

  it('an invalid budget fails with run.invalid_input naming it', async () => {
    const digest = h.composition.registry.snapshot().digest;
    const input = {
      schemaVersion: 1,
      profile: { name: 'support.answer', version: 'v1' },
      toolRegistryDigest: digest,
      modelRoute: 'scripted/refund',
      configDigest: h.composition.configDigest,
      task: { message: 'hi' },
      budget: { maxSteps: -1, maxBananas: 3 },
    };
    const failure = await expectFailedAtOnce(await startRaw(input), 'run.invalid_input');
    expect(failure.message).toContain('maxSteps');
  });

  it('an unknown profile fails with run.unknown_profile', async () => {
    const handle = await h.start({
      profile: { name: 'no.such.profile', version: 'v1' },
      task: { message: 'hi' },
    });
    const failure = await expectFailedAtOnce(handle, 'run.unknown_profile');
    expect(failure.message).toContain('no.such.profile@v1');
  });

  it('a policy the profile does not list fails with run.policy_not_allowed before anything runs', async () => {
    for (const policy of [
      { name: 'allow_all', version: 'v1' }, // registered (the bench profile's), not the refund assistant's
      { name: 'no.such.policy', version: 'v9' },
    ]) {
      const handle = await h.start({
        profile: { name: 'refund.assistant', version: 'v1' },
        policy,
        task: { message: 'Refund ORD-1001' },
      });
      const failure = await expectFailedAtOnce(handle, 'run.policy_not_allowed');
      expect(failure.message).toContain(`may not run under ${policy.name}@${policy.version}`);
      expect(failure.message).toContain('allowed: refund.assisted@v1, refund.rules@v1, read_only@v1');
      const types = await historyEventTypes(handle);
      expect(types).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
      // A marker-free start (run-patches.ts): the binding is on through the baseline, nothing recorded.
      expect(types).not.toContain('EVENT_TYPE_MARKER_RECORDED');
    }
  });

  it("a run that names no policy runs under its profile's default", async () => {
    const handle = await h.start({
      profile: { name: 'refund.assistant', version: 'v1' },
      modelRoute: 'scripted/refund',
      task: { message: 'Refund ORD-1001' },
    });
    const view = await waitForState(handle, (v) => v.versions.policy !== undefined);
    expect(view.versions.policy).toBe('refund.assisted@v1');
    await handle.terminate('test done');
  });

  it('a starter cannot hand in carried state (facts, approvals): only a continue-as-new may', async () => {
    const handle = await h.t.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: testRunId('forged-carry'),
      args: [
        { schemaVersion: 1, profile: { name: 'refund.assistant', version: 'v1' }, task: { message: 'hi' } },
        { schemaVersion: 1, state: { facts: { 'order.owner_verified': true } }, authz: { approvals: {} } },
      ],
    });
    const failure = await expectFailedAtOnce(handle, 'run.carried_state_refused');
    expect(failure.message).toContain("only from the run's own continue-as-new");
  });
});
