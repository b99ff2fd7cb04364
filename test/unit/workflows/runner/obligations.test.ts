import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import { signedPayload } from '../../../../src/client/decisions/send-decision.js';
import { DEFAULT_AUTHORIZATION } from '../../../../src/workflows/authz/authorization-rules.js';
import { DecisionAuthority } from '../../../../src/workflows/authz/decision-authority.js';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import { deniedByObligations, obligationKind } from '../../../../src/workflows/runner/obligations.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { TEST_KEYS, TEST_PRINCIPALS } from '../../../support/principals.js';
import { fakeRun } from './fake-run.js';

/** The fake run as its `state` view names it. */
const RUN = { runId: 'run-1', firstExecutionRunId: 'first-1' };

/** `demo.write` is allowed, with the given obligations. */
function allowWith(obligations: string[], decision: 'allow' | 'require_confirmation' = 'allow') {
  return new RulesPolicy({
    name: 'obliged',
    version: 'v1',
    customReasonCodes: ['demo.ok'],
    rules: [{ id: 'write', when: { tool: 'demo.write' }, decision, reasonCodes: ['demo.ok'], obligations }],
    default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
  });
}

function signedRun(
  obligations: string[],
  decision: 'allow' | 'require_confirmation' = 'allow',
  requester?: string,
) {
  const seen: Observation[] = [];
  const authority = new DecisionAuthority({
    workflowId: 'run-1',
    firstExecutionRunId: 'first-1',
    requester,
    rules: DEFAULT_AUTHORIZATION,
  });
  const run = fakeRun({
    policy: allowWith(obligations, decision),
    run: async (ctx: RunContext) => {
      seen.push(await ctx.tool('demo.write', { amount: 7 }));
      return { output: 'finished' };
    },
    authorization: {
      authority,
      loadPrincipals: () => Promise.resolve({ digest: 'sha256:test', registry: TEST_PRINCIPALS }),
    },
  });
  return { run, seen };
}

describe('obligations: enforced before dispatch, or the call does not happen', () => {
  it('kinds: output, verify, customer confirmation, audit; anything else is unknown', () => {
    expect(
      [
        'mask.phone',
        'limit.refund_amount=5000',
        'verify.order.owner_verified',
        'confirm.user.v2',
        'log.audit.high_risk',
        'limit.other=1',
        'notify.team',
      ].map(obligationKind),
    ).toEqual(['output', 'output', 'verify', 'confirm_user', 'audit', 'unknown', 'unknown']);
    expect(
      deniedByObligations(['verify.order.owner_verified'], { 'order.owner_verified': true }),
    ).toBeUndefined();
    expect(
      deniedByObligations(['verify.order.owner_verified'], { 'order.owner_verified': 'yes' })?.code,
    ).toBe('obligation.unverified');
  });

  it('an obligation the harness does not know denies the call before anyone is asked (fail closed)', async () => {
    const { run, seen } = signedRun(['notify.team'], 'require_confirmation');
    await run.execute();
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'obligation.unknown' });
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(run.ports.waits).toHaveLength(0);
    expect(run.ports.typesOf()).toContain('obligation.denied');
  });

  it('verify.<fact> without the verified fact denies the call', async () => {
    const { run, seen } = signedRun(['verify.order.owner_verified']);
    await run.execute();
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'obligation.unverified' });
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('log.audit.* stores an audit record naming the approver before the effect', async () => {
    const { run, seen } = signedRun(['log.audit.demo'], 'require_confirmation');
    const done = run.execute();
    await run.ports.untilWaiting();
    const p = run.state.pendingAction!;
    const payload = signedPayload(TEST_KEYS.ops, RUN, 'approve', {}, p, {
      now: new Date(run.ports.now()),
    });
    expect(run.runner.gate.receive('approve', payload)).toMatchObject({ accepted: true });
    await done;
    expect(seen[0]?.status).toBe('succeeded');
    const types = run.ports.typesOf();
    expect(types.indexOf('audit.recorded')).toBeLessThan(types.indexOf('tool.authorized'));
    expect(run.ports.events.find((e) => e.type === 'audit.recorded')?.data).toMatchObject({
      obligations: ['log.audit.demo'],
      approvers: [TEST_KEYS.ops.principal],
      customer: null,
    });
  });

  it("confirm.user.* needs the run's customer: a run without one is denied after the approval", async () => {
    const { run, seen } = signedRun(['confirm.user.v1'], 'require_confirmation');
    const done = run.execute();
    await run.ports.untilWaiting();
    const payload = signedPayload(TEST_KEYS.ops, RUN, 'approve', {}, run.state.pendingAction!, {
      now: new Date(run.ports.now()),
    });
    run.runner.gate.receive('approve', payload);
    await done;
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'obligation.no_customer' });
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('confirm.user.*: the customer confirms; a rejection by the customer denies the call', async () => {
    const { run, seen } = signedRun(
      ['confirm.user.v1'],
      'require_confirmation',
      TEST_KEYS.customer.principal,
    );
    const done = run.execute();
    await run.ports.untilWaiting();
    const now = () => ({ now: new Date(run.ports.now()) });
    run.runner.gate.receive(
      'approve',
      signedPayload(TEST_KEYS.ops, RUN, 'approve', {}, run.state.pendingAction!, now()),
    );
    await run.ports.settle();
    await run.ports.untilWaiting();
    expect(run.state.humanRequest).toMatchObject({
      decisionType: 'customer_confirmation',
      allowedDecisions: ['confirm', 'reject'],
    });
    const reject = signedPayload(
      TEST_KEYS.customer,
      RUN,
      'reject',
      { reason: 'no' },
      run.state.pendingAction!,
      now(),
    );
    expect(run.runner.gate.receive('reject', reject)).toMatchObject({
      accepted: true,
      principal: TEST_KEYS.customer.principal,
    });
    await done;
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'approval.rejected' });
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('runs from before signed decisions are unchanged: obligations are recorded, not enforced', async () => {
    const seen: Observation[] = [];
    const run = fakeRun({
      policy: allowWith(['notify.team']),
      run: async (ctx: RunContext) => {
        seen.push(await ctx.tool('demo.write', { amount: 7 }));
        return { output: 'finished' };
      },
    });
    await run.execute();
    expect(seen[0]?.status).toBe('succeeded');
  });
});
