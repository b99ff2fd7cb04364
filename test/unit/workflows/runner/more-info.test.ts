import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/contract/observation.js';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { ALL_FEATURES, featuresOf } from '../../../../src/workflows/runner/run-features.js';
import { fakeRun } from './fake-run.js';

/** demo.write needs a person's decision at dispatch. */
const humanWrites = new RulesPolicy({
  name: 'human_writes',
  version: 'v1',
  customReasonCodes: ['demo.human', 'demo.reads'],
  rules: [
    {
      id: 'human',
      when: { tool: 'demo.write', stage: 'dispatch' },
      decision: 'require_human',
      reasonCodes: ['demo.human'],
    },
    { id: 'all', when: {}, decision: 'allow', reasonCodes: ['demo.reads'] },
  ],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

async function waitingRun(features = ALL_FEATURES) {
  const seen: Observation[] = [];
  const run = fakeRun({
    policy: humanWrites,
    features,
    run: async (ctx: RunContext) => {
      seen.push(await ctx.tool('demo.write', { amount: 7 }));
      return { output: 'finished' };
    },
  });
  const done = run.execute();
  await run.ports.untilWaiting();
  return { run, seen, done };
}

describe('request_more_info (in memory)', () => {
  it('a run without agent-run-request-more-info-v1 refuses it and offers approve and reject only', async () => {
    const { run, done } = await waitingRun(featuresOf({ boundedValues: true }));
    const actionId = run.state.pendingAction!.actionId;
    expect(run.state.humanRequest?.allowedDecisions).toEqual(['approve', 'reject']);
    const outcome = run.runner.gate.receive('requestMoreInfo', { actionId, actor: 'ops', question: 'why?' });
    expect(outcome).toMatchObject({ accepted: false, code: 'signal.not_supported' });
    expect(run.state.status).toBe('awaiting_human');
    run.runner.gate.receive('approve', { actionId, actor: 'ops' });
    expect((await done).status).toBe('succeeded');
  });

  it('a malformed question or another action changes nothing', async () => {
    const { run } = await waitingRun();
    const actionId = run.state.pendingAction!.actionId;
    const gate = run.runner.gate;
    expect(gate.receive('requestMoreInfo', { actionId, actor: 'ops', question: '' }).code).toBe(
      'signal.malformed',
    );
    expect(gate.receive('requestMoreInfo', { actionId, actor: 'ops', question: 'x'.repeat(2001) }).code).toBe(
      'signal.malformed',
    );
    expect(
      gate.receive('requestMoreInfo', { actionId: 'act-other', actor: 'ops', question: 'why?' }).code,
    ).toBe('signal.action_mismatch');
    expect(run.state.status).toBe('awaiting_human');
    expect(run.ports.toolCalls).toHaveLength(0);
  });

  it('the question goes to the requester; the answer brings the action back; an expiry meanwhile rejects it', async () => {
    const { run, seen, done } = await waitingRun();
    const actionId = run.state.pendingAction!.actionId;
    const expiresAt = run.state.pendingAction!.expiresAt;
    run.runner.gate.receive('requestMoreInfo', { actionId, actor: 'ops', question: 'why?' });
    await run.ports.settle();
    expect(run.state.status).toBe('awaiting_input');
    expect(run.state.pendingAction).toMatchObject({
      kind: 'input',
      slot: `more_info:${actionId}`,
      expiresAt,
    });
    run.runner.gate.receive('provideInput', { slot: `more_info:${actionId}`, value: 'because', actor: 'C1' });
    await run.ports.settle();
    expect(run.state.status).toBe('awaiting_human');
    expect(run.state.pendingAction).toMatchObject({ actionId, expiresAt });
    expect(run.ports.toolCalls).toHaveLength(0);
    // A second question, left unanswered until the decision expires.
    run.runner.gate.receive('requestMoreInfo', { actionId, actor: 'lead', question: 'and?' });
    await run.ports.settle();
    run.ports.expireWait();
    const final = await done;
    expect(final.status).toBe('succeeded');
    expect(run.ports.toolCalls).toHaveLength(0);
    expect(seen[0]).toMatchObject({ status: 'rejected', errorCode: 'approval.expired' });
    expect(run.ports.typesOf().filter((t) => t.startsWith('human.more_info'))).toEqual([
      'human.more_info_requested',
      'human.more_info_answered',
      'human.more_info_requested',
      'human.more_info_expired',
    ]);
  });
});
