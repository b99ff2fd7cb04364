import { describe, expect, it } from 'vitest';
import { boundCarriedState } from '../../../../src/workflows/runner/carried-bounds.js';
import { ContinueAsNewRequested } from '../../../../src/workflows/runner/continue-as-new.js';
import { scopedContext } from '../../../../src/workflows/runner/graph-node-scope.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import { RunEvidence } from '../../../../src/workflows/runner/run-evidence.js';
import { ALL_FEATURES, IN_MEMORY_FEATURES } from '../../../../src/workflows/runner/run-features.js';
import type { RunState } from '../../../../src/workflows/runner/run-state.js';
import { fakeRun, freshState } from './fake-run.js';

/** Reads an order (an observed artifact) and records two facts from it. */
async function readOrder(ctx: RunContext): Promise<void> {
  const o = await ctx.tool('demo.read', { id: 'A1' });
  ctx.recordFact('order.status', 'delivered', o.artifactIds[0]!);
  ctx.recordFact('order.owner_verified', true, o.artifactIds[0]!);
}

describe('RunContext.withdrawFact', () => {
  it('removes a held fact and records fact.withdrawn; an absent fact is a no-op without an event', async () => {
    const run = fakeRun({
      run: async (ctx) => {
        await readOrder(ctx);
        ctx.withdrawFact('order.status', 'order.switched');
        ctx.withdrawFact('order.status', 'order.switched'); // gone already: nothing
        ctx.withdrawFact('order.never_recorded', 'order.switched');
        return { output: 'x' };
      },
    });
    const final = await run.execute();
    expect(final.facts).toEqual({ 'order.owner_verified': true });
    expect(run.ports.ofType('fact.withdrawn').map((e) => e.data)).toEqual([
      { name: 'order.status', reason: 'order.switched' },
    ]);
    expect(run.ports.ofType('fact.withdrawn')[0]).toMatchObject({
      producer: 'runner',
      dataClassification: 'internal',
    });
    expect(run.ports.ofType('fact.rejected')).toEqual([]);
  });

  it('withdraws nothing for an invalid name or reason or a taint fact: fact.rejected (fact.invalid_withdrawal)', async () => {
    const long = `order.${'x'.repeat(200)}`;
    const run = fakeRun({
      run: async (ctx) => {
        await readOrder(ctx);
        ctx.withdrawFact('order.status', 'Customer switched!');
        ctx.withdrawFact('order.status', long);
        ctx.withdrawFact('Order Status', 'order.switched');
        ctx.withdrawFact('order.status', '');
        ctx.withdrawFact('taint.secret', 'order.switched');
        return { output: 'x' };
      },
    });
    const final = await run.execute();
    expect(final.facts).toEqual({ 'order.status': 'delivered', 'order.owner_verified': true });
    expect(run.ports.ofType('fact.withdrawn')).toEqual([]);
    const rejected = run.ports.ofType('fact.rejected').map((e) => e.data);
    expect(rejected.map((d) => [d['name'], d['code']])).toEqual([
      ['order.status', 'fact.invalid_withdrawal'],
      ['order.status', 'fact.invalid_withdrawal'],
      ['Order Status', 'fact.invalid_withdrawal'],
      ['order.status', 'fact.invalid_withdrawal'],
      ['taint.secret', 'fact.invalid_withdrawal'],
    ]);
    // The event keeps at most 100 characters of what it was given.
    expect(rejected[1]!['reason']).toBe(long.slice(0, 100));
  });

  it('a withdrawn fact loses its evidence too (it can no longer be remembered)', () => {
    const state = freshState();
    state.artifacts.push({ id: 'a1', type: 'order', schemaVersion: '1', provenance: 'observed' });
    const evidence = new RunEvidence();
    const core = { state, emit: () => undefined, features: IN_MEMORY_FEATURES };
    evidence.recordFact(core, 'order.status', 'delivered', 'a1');
    expect(evidence.evidenceOf('order.status')).toEqual({ id: 'a1', provenance: 'observed' });
    evidence.withdrawFact(core, 'order.status', 'order.switched');
    expect(evidence.evidenceOf('order.status')).toBeUndefined();
    expect(state.facts).toEqual({});
  });

  it('versioned facts (agent-run-versioned-facts-v1): each change is a new version, carried on', () => {
    const state = freshState();
    state.artifacts.push({ id: 'a1', type: 'order', schemaVersion: '1', provenance: 'observed' });
    state.invocations.push({
      seq: 3,
      tool: 'order.read',
      version: 'v1',
      effect: 'read',
      argsDigest: 'sha256:x',
      status: 'succeeded',
      artifactIds: ['a1'],
    });
    const events: [string, Record<string, unknown>][] = [];
    const core = {
      state,
      emit: (t: string, d: Record<string, unknown>) => void events.push([t, d]),
      features: ALL_FEATURES,
    };
    const evidence = new RunEvidence();
    evidence.recordFact(core, 'order.status', 'paid', 'a1');
    evidence.recordFact(core, 'order.status', 'paid', 'a1'); // no change: same version
    expect(evidence.factRefs(core)).toEqual(['fact://order.status@v1']);
    evidence.recordFact(core, 'order.status', 'shipped', 'a1');
    evidence.withdrawFact(core, 'order.status', 'order.switched');
    evidence.recordFact(core, 'order.status', 'paid', 'a1');
    expect(events.map(([t, d]) => [t, d['version']])).toEqual([
      ['fact.recorded', 1],
      ['fact.recorded', 1],
      ['fact.recorded', 2],
      ['fact.withdrawn', 3],
      ['fact.recorded', 4],
    ]);
    expect(events[0]![1]).toMatchObject({
      ref: 'fact://order.status@v1',
      observation: { seq: 3, tool: 'order.read', version: 'v1' },
    });
    expect(evidence.versions.snapshot()['order.status']).toEqual({ version: 4, observationSeq: 3 });
    // The next generation goes on from the carried versions.
    const next = new RunEvidence(evidence.versions.carry());
    next.recordFact({ ...core, state: { ...state, facts: {} } }, 'order.status', 'paid', 'a1');
    expect(next.versions.versionOf('order.status')).toBe(5);
    // Without the feature: the old refs and events.
    const old = { state, emit: () => undefined, features: IN_MEMORY_FEATURES };
    expect(new RunEvidence().factRefs(old)).toEqual(['fact://order.status=paid']);
  });

  it('a graph node scoped to its capabilities withdraws facts too', async () => {
    const run = fakeRun({
      run: async (ctx) => {
        await readOrder(ctx);
        const node = scopedContext(ctx, {
          id: 'n',
          capabilities: ['demo.read'],
          run: () => undefined,
        } as never);
        node.withdrawFact('order.status', 'order.switched');
        return { output: 'x' };
      },
    });
    const final = await run.execute();
    expect(final.facts).toEqual({ 'order.owner_verified': true });
    expect(run.ports.ofType('fact.withdrawn')).toHaveLength(1);
  });

  it('stays withdrawn in the next generation after continue-as-new', async () => {
    const first = fakeRun({
      run: async (ctx) => {
        await readOrder(ctx);
        ctx.withdrawFact('order.status', 'order.switched');
        await ctx.checkpoint({ at: 'after_withdrawal' });
        return { output: 'not reached' };
      },
    });
    Object.assign(first.ports, { shouldContinueAsNew: () => true });
    await expect(first.execute()).rejects.toBeInstanceOf(ContinueAsNewRequested);
    // What `agentRun` carries (bounded), through a serialization as the history does.
    const carried = JSON.parse(JSON.stringify(boundCarriedState(first.state))) as RunState;
    expect(carried.facts).toEqual({ 'order.owner_verified': true });

    const second = fakeRun({
      prepareState: (s) => Object.assign(s, carried),
      resumed: true,
      run: (ctx) => {
        ctx.withdrawFact('order.status', 'order.switched'); // absent here too: nothing
        return Promise.resolve({ output: JSON.stringify(ctx.resume) });
      },
    });
    const final = await second.execute();
    expect(final.facts).toEqual({ 'order.owner_verified': true });
    expect(final.output).toBe('{"at":"after_withdrawal"}');
    expect(second.ports.ofType('fact.withdrawn')).toEqual([]);
  });
});
