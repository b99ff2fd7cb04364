import { describe, expect, it } from 'vitest';
import { ALL_FEATURES, featuresOf } from '../../../../src/workflows/runner/run-features.js';
import { RulesPolicy } from '../../../../src/workflows/policy/index.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { fakeRun } from './fake-run.js';

const reads = new RulesPolicy({
  name: 'read_only',
  version: 'v1',
  customReasonCodes: ['demo.reads'],
  rules: [{ id: 'reads', when: { effect: 'read' }, decision: 'allow', reasonCodes: ['demo.reads'] }],
  default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
});

const PIN = {
  rollout: 'read-rules',
  arm: 'stable' as const,
  bucket: 17,
  candidatePercent: 0,
  policy: { key: 'read-rules@v3', digest: `sha256:${'ab'.repeat(32)}`, target: 'read_only@v1' },
};

const readThenWrite = async (ctx: RunContext) => {
  await ctx.tool('demo.read', { id: 'a' });
  await ctx.tool('demo.write', { amount: 1 });
  return { output: 'done' };
};

function decided(run: ReturnType<typeof fakeRun>) {
  return run.ports.ofType('policy.decided').map((e) => e.data);
}

describe('policy.decided names the rules that decided', () => {
  it('a run that pinned a policy bundle: every decision names the bundle, its digest and the policy it fills', async () => {
    const run = fakeRun({ policy: reads, bundles: PIN, features: ALL_FEATURES, run: readThenWrite });
    await run.execute();
    const events = decided(run);
    expect(events.map((d) => d.decision)).toEqual(['allow', 'deny']);
    for (const d of events)
      expect(d.rules).toEqual({
        source: 'bundle',
        bundle: 'read-rules@v3',
        digest: PIN.policy.digest,
        policy: 'read_only@v1',
      });
  });

  it('a run without a policy bundle: the policy in code', async () => {
    const run = fakeRun({ policy: reads, features: ALL_FEATURES, run: readThenWrite });
    await run.execute();
    for (const d of decided(run)) expect(d.rules).toEqual({ source: 'code', policy: 'read_only@v1' });
  });

  it('a run without the feature (recorded before it) records its decisions as before', async () => {
    const run = fakeRun({ policy: reads, bundles: PIN, features: featuresOf({}), run: readThenWrite });
    await run.execute();
    expect(decided(run).length).toBe(2);
    for (const d of decided(run)) expect(d).not.toHaveProperty('rules');
  });
});
