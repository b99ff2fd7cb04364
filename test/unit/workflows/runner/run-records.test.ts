import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../../../src/contract/artifact.js';
import type { AgentEvent } from '../../../../src/contract/agent-event.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { decision, fakeRun, succeeded } from './fake-run.js';

/** Stored events are unique by sequence and, sorted, are exactly 1..n. */
function expectGapFree(events: readonly AgentEvent[]): void {
  const seqs = [...new Set(events.map((e) => e.sequence))].sort((a, b) => a - b);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  for (const e of events) expect(e.eventId).toBe(`${e.runId}:${e.sequence}`);
}

const verifiedArtifact = (id: string, subject: string): Artifact => ({
  id,
  type: 'demo.check',
  schemaVersion: '1',
  provenance: 'verified',
  verification: { subject: { externalId: subject }, status: 'passed' },
});

describe('artifact provenance', () => {
  it('model-provenance artifacts from an executor are refused and not recorded', async () => {
    const run = fakeRun({
      tool: (i) =>
        succeeded(i, {
          artifacts: [
            { id: 'forged', type: 'demo.check', schemaVersion: '1', provenance: 'model' },
            { id: 'real', type: 'thing', schemaVersion: '1', provenance: 'observed' },
          ],
        }),
      run: async (ctx) => {
        const o = await ctx.tool('demo.read', { id: 'a' });
        return { output: o.artifactIds };
      },
    });
    const final = await run.execute();
    expect(final.artifacts.map((a) => a.id)).toEqual(['real']);
    expect(final.output).toEqual(['real']);
    expect(final.invocations[0]?.artifactIds).toEqual(['real']);
    expect(run.ports.ofType('artifact.rejected')[0]?.data).toMatchObject({
      id: 'forged',
      code: 'artifact.forged_provenance',
    });
  });

  it('a profile creates model artifacts only; claiming observed or verified fails the run', async () => {
    for (const provenance of ['observed', 'verified']) {
      const run = fakeRun({
        run: (ctx) => {
          ctx.addModelArtifact({
            id: 'plan',
            type: 'plan',
            schemaVersion: '1',
            provenance,
            verification: undefined,
          });
          return Promise.resolve({ output: 'x' });
        },
      });
      const final = await run.execute();
      expect(final.status).toBe('failed');
      expect(final.terminalReason?.code).toBe('artifact.forged_provenance');
      expect(final.artifacts).toEqual([]);
    }
    const ok = fakeRun({
      run: (ctx) => {
        const a = ctx.addModelArtifact({ id: 'plan', type: 'plan', schemaVersion: '1', data: { steps: 2 } });
        expect(ctx.artifact('plan')).toEqual(a);
        return Promise.resolve({ output: a.provenance });
      },
    });
    const final = await ok.execute();
    expect(final.output).toBe('model');
    expect(final.artifacts[0]?.provenance).toBe('model');
  });

  it('recordFact needs observed or verified evidence; model or missing evidence is refused', async () => {
    const run = fakeRun({
      run: async (ctx) => {
        const o = await ctx.tool('demo.read', { id: 'a' });
        ctx.addModelArtifact({ id: 'claim', type: 'claim', schemaVersion: '1' });
        ctx.recordFact('demo.from_model', true, 'claim');
        ctx.recordFact('demo.from_nothing', true, 'no-such-artifact');
        ctx.recordFact('demo.owner_verified', true, o.artifactIds[0]!);
        return { output: 'x' };
      },
    });
    const final = await run.execute();
    expect(final.facts).toEqual({ 'demo.owner_verified': true });
    expect(run.ports.ofType('fact.rejected').map((e) => [e.data.name, e.data.code])).toEqual([
      ['demo.from_model', 'fact.unverified_evidence'],
      ['demo.from_nothing', 'fact.unverified_evidence'],
    ]);
    expect(run.ports.ofType('fact.recorded')).toHaveLength(1);
  });
});

describe('events', () => {
  it('every event carries the pinned versions and sequences are gap-free, in order', async () => {
    const run = fakeRun({
      model: (_i, n) =>
        n === 1
          ? decision({ toolCalls: [{ id: 'c1', name: 'demo.read', version: 'v1', args: { id: 'a' } }] })
          : decision({ text: 'answer' }),
      run: async (ctx) => {
        let d = await ctx.model('decide', {
          messages: [{ role: 'user', content: 'q' }],
          tools: ctx.visibleTools(),
        });
        while (d.toolCalls.length) {
          for (const c of d.toolCalls) await ctx.tool(c.name, c.args);
          d = await ctx.model('decide', { messages: [] });
        }
        return { output: d.text };
      },
    });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    const seqs = run.ports.events.map((e) => e.sequence);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(final.nextEventSeq).toBe(seqs.length + 1);
    for (const e of run.ports.events) expect(e.versions).toEqual(final.versions);
    expect(run.ports.typesOf().slice(0, 6)).toEqual([
      'run.created',
      'state.transitioned',
      'state.transitioned',
      'run.started',
      'checkpoint.saved',
      'model.requested',
    ]);
    expect(run.ports.typesOf().slice(-4)).toEqual([
      'eval.completed',
      'checkpoint.saved',
      'state.transitioned',
      'run.completed',
    ]);
  });

  it('stays gap-free when a tool activity is cancelled or lost before it could store its events', async () => {
    for (const outcome of ['cancelled', 'lost'] as const) {
      const run = fakeRun({
        tool: (i) => (i.seq === 1 ? { kind: outcome, message: 'never started' } : succeeded(i)),
        resolve: () => ({ kind: 'no_intent' }),
        run: async (ctx) => {
          await ctx.tool('demo.write', { amount: 1 });
          await ctx.tool('demo.read', { id: 'x' });
          return { output: 'x' };
        },
      });
      const final = await run.execute();
      expect(final.status).toBe(outcome === 'cancelled' ? 'cancelled' : 'succeeded');
      expectGapFree(run.ports.events);
      expect(Math.max(...run.ports.events.map((e) => e.sequence))).toBe(final.nextEventSeq - 1);
    }
  });

  it('stays gap-free when a model call fails', async () => {
    const run = fakeRun({
      model: () => {
        throw new Error('provider down');
      },
      run: async (ctx: RunContext) => {
        await ctx.model('decide', { messages: [] });
        return { output: 'x' };
      },
    });
    const final = await run.execute();
    expect(final.status).toBe('failed');
    expect(final.terminalReason?.code).toBe('run.internal_error');
    expectGapFree(run.ports.events);
    expect(Math.max(...run.ports.events.map((e) => e.sequence))).toBe(final.nextEventSeq - 1);
  });
});

describe('completion', () => {
  const contract = {
    evaluator: { name: 'action_with_verification', version: 'v1' },
    params: { actionTool: 'demo.write', verificationType: 'demo.check' },
  };

  it('passes when the write is observed and independently verified', async () => {
    const run = fakeRun({
      completion: contract,
      tool: (i) =>
        i.tool === 'demo.read'
          ? succeeded(i, { artifacts: [verifiedArtifact('check', 'X1')] })
          : succeeded(i),
      run: async (ctx) => {
        await ctx.tool('demo.write', { amount: 1 });
        await ctx.tool('demo.read', { id: 'check' });
        return { output: 'refund done' };
      },
    });
    const final = await run.execute();
    expect(final.status).toBe('succeeded');
    expect(run.ports.ofType('eval.completed')[0]?.data).toMatchObject({
      passed: true,
      evaluator: 'action_with_verification/v1',
    });
    expect(run.ports.ofType('run.completed')[0]?.data).toMatchObject({ status: 'succeeded' });
  });

  it('fails (completion.not_satisfied) when the output claims success without a verification', async () => {
    const run = fakeRun({
      completion: contract,
      run: async (ctx) => {
        await ctx.tool('demo.write', { amount: 1 });
        return { output: 'refund done and verified' };
      },
    });
    const final = await run.execute();
    expect(final.status).toBe('failed');
    expect(final.terminalReason?.code).toBe('completion.not_satisfied');
    expect(final.terminalReason?.details?.reasonCodes).toEqual(['completion.no_verified_artifact']);
    expect(run.ports.ofType('eval.completed')[0]?.data).toMatchObject({ passed: false });
    expect(run.ports.typesOf()).not.toContain('run.completed');
  });

  it('a profile error ends the run as failed with its code', async () => {
    const run = fakeRun({
      run: () => Promise.reject(Object.assign(new Error('no route'), { code: 'graph.no_route' })),
    });
    const final = await run.execute();
    expect(final).toMatchObject({
      status: 'failed',
      terminalReason: { code: 'graph.no_route', message: 'no route' },
    });
  });
});
