import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../../../src/contract/artifact.js';
import { collectEvidence } from '../../../../src/workflows/completion/evidence.js';
import { RunStateV2Schema } from '../../../../src/workflows/migration/index.js';
import { checkToolCall } from '../../../../src/workflows/runner/budget.js';
import { CARRY_BOUNDS, boundCarriedState } from '../../../../src/workflows/runner/carried-bounds.js';
import type { InvocationSummary, RunState } from '../../../../src/workflows/runner/run-state.js';
import { restoreCarriedState } from '../../../../src/workflows/temporal/carried-run.js';
import { freshState } from './fake-run.js';

const digest = (k: number): string => `sha256:${k.toString(16).padStart(64, '0')}`;
const keyOf = (i: Pick<InvocationSummary, 'tool' | 'version' | 'argsDigest'>): string =>
  `${i.tool}@${i.version}#${i.argsDigest}`;

/** `n` more steps as the bench run takes them: a new read call each, succeeded, no artifacts. */
function takeSteps(state: RunState, n: number, artifactEvery = 0): void {
  for (let k = 0; k < n; k++) {
    const seq = state.nextSeq++;
    const invocation: InvocationSummary = {
      seq,
      tool: 'bench.noop',
      version: 'v1',
      effect: 'read',
      argsDigest: digest(seq),
      status: 'succeeded',
      artifactIds: [],
    };
    if (artifactEvery > 0 && seq % artifactEvery === 0) {
      const artifact: Artifact = { id: `a${seq}`, type: 'note', schemaVersion: '1', provenance: 'observed' };
      state.artifacts.push(artifact);
      invocation.artifactIds.push(artifact.id);
    }
    state.invocations.push(invocation);
    state.budget.toolCalls += 1;
    state.budget.steps += 1;
    state.budget.callDigests[keyOf(invocation)] = 1;
    state.completedSteps.push(`step-${seq}`);
  }
}

/** A carried state as the next generation receives it (through JSON, as Temporal hands it over). */
function carry(state: RunState): RunState {
  return JSON.parse(JSON.stringify(boundCarriedState(state))) as RunState;
}

const size = (v: unknown): number => JSON.stringify(v).length;

describe('the carried state (continue-as-new input)', () => {
  it('stays the same size generation after generation, however long the run', () => {
    let state = freshState();
    const sizes: number[] = [];
    for (let generation = 0; generation < 25; generation++) {
      takeSteps(state, 416);
      state = carry(state);
      sizes.push(size(state));
    }
    expect(state.budget.toolCalls).toBe(25 * 416);
    expect(state.invocations).toHaveLength(CARRY_BOUNDS.invocations);
    expect(state.invocations.map((i) => i.seq)).toEqual(
      Array.from({ length: CARRY_BOUNDS.invocations }, (_, k) => 25 * 416 - CARRY_BOUNDS.invocations + 1 + k),
    );
    expect(Object.keys(state.budget.callDigests)).toHaveLength(CARRY_BOUNDS.callDigests);
    expect(state.completedSteps).toHaveLength(CARRY_BOUNDS.completedSteps);
    expect(state.completedSteps.at(-1)).toBe(`step-${25 * 416}`);
    // Flat from the second generation on (only the numbers get longer), far from the 2 MB limit.
    expect(Math.max(...sizes.slice(1)) - Math.min(...sizes.slice(1))).toBeLessThan(512);
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024);
  });

  it('does not change the live state, and the next generation accepts what it carries', () => {
    const state = freshState();
    takeSteps(state, 500);
    const before = JSON.stringify(state);
    const carried = boundCarriedState(state);
    expect(JSON.stringify(state)).toBe(before);
    expect(RunStateV2Schema.safeParse(JSON.parse(JSON.stringify(carried))).success).toBe(true);
    expect(restoreCarriedState({ schemaVersion: 1, state: carried }, 'run-1').invocations).toHaveLength(64);
  });

  it('leaves a short run as it is', () => {
    const state = freshState();
    takeSteps(state, 20, 3);
    expect(boundCarriedState(state)).toEqual(state);
  });

  it('still accepts a whole, unbounded state carried by a generation from before the bound', () => {
    const state = freshState();
    takeSteps(state, 3_000, 7);
    const restored = restoreCarriedState(
      { schemaVersion: 1, state: JSON.parse(JSON.stringify(state)) as RunState },
      'run-1',
    );
    expect(restored.invocations).toHaveLength(3_000);
    expect(carry(restored).invocations.length).toBeLessThanOrEqual(2 * CARRY_BOUNDS.invocations);
  });

  it('keeps open invocations and the one the pending action waits on, however old', () => {
    const state = freshState();
    takeSteps(state, 300);
    state.invocations[3]!.status = 'outcome_unknown';
    state.invocations[5]!.status = 'pending';
    state.pendingAction = {
      actionId: 'reconcile-7',
      kind: 'reconcile',
      invocationSeq: state.invocations[6]!.seq,
      expiresAt: null,
    };
    const seqs = boundCarriedState(state).invocations.map((i) => i.seq);
    expect(seqs.slice(0, 3)).toEqual([4, 6, 7]);
    expect(seqs).toHaveLength(CARRY_BOUNDS.invocations + 3);
  });

  it('carries the newest artifacts with their producers: the evidence they make is unchanged', () => {
    const state = freshState();
    takeSteps(state, 1_000, 5);
    const carried = boundCarriedState(state);
    expect(carried.artifacts).toHaveLength(CARRY_BOUNDS.artifacts);
    expect(carried.artifacts.at(-1)?.id).toBe('a1000');
    const evidence = collectEvidence(carried);
    expect(evidence.ignoredIds).toEqual([]);
    expect(evidence.observed.map((e) => e.artifact.id)).toEqual(carried.artifacts.map((a) => a.id));
    expect(evidence.observed.map((e) => e.producer.seq)).toEqual(
      carried.artifacts.map((a) => Number(a.id.slice(1))),
    );
    // What the full state trusts for those artifacts, the carried state trusts the same way.
    const full = collectEvidence(state).observed.filter((e) => carried.artifacts.includes(e.artifact));
    expect(full.map((e) => e.producer.seq)).toEqual(evidence.observed.map((e) => e.producer.seq));
  });

  it('bounds the artifacts by size as well as by count', () => {
    const state = freshState();
    for (let k = 0; k < 40; k++)
      state.artifacts.push({
        id: `big${k}`,
        type: 'blob',
        schemaVersion: '1',
        provenance: 'model',
        data: 'x'.repeat(16_000),
      });
    const carried = boundCarriedState(state);
    expect(size(carried.artifacts)).toBeLessThanOrEqual(CARRY_BOUNDS.artifactBytes);
    expect(carried.artifacts.length).toBe(16);
    expect(carried.artifacts.at(-1)?.id).toBe('big39');
  });

  it('carries the most recently used call digests, so a repeated recent call is still refused', () => {
    const limits = { ...freshState().limits, maxDuplicateCalls: 2, maxToolCalls: 100_000 };
    const state = freshState(limits);
    takeSteps(state, 1_000);
    // The first call is made again, late in the generation: it is recent now.
    const first = state.invocations[0]!;
    const again: InvocationSummary = { ...first, seq: state.nextSeq++, artifactIds: [] };
    state.invocations.push(again);
    state.budget.callDigests[keyOf(first)] = 2;
    const carried = carry(state);
    expect(carried.budget.callDigests[keyOf(first)]).toBe(2);
    expect(checkToolCall(carried.limits, carried.budget, 'bench.noop', keyOf(first))).toMatchObject({
      budget: 'duplicate_call',
    });
    // A call last made more than 256 distinct calls ago counts from zero again.
    const old = state.invocations[10]!;
    expect(carried.budget.callDigests[keyOf(old)]).toBeUndefined();
    // Oldest first: the order carried is the order of use.
    const keys = Object.keys(carried.budget.callDigests);
    expect(keys.at(-1)).toBe(keyOf(first));
    expect(keys.at(-2)).toBe(keyOf(state.invocations[999]!));
  });

  it('ranks digests carried from an earlier generation older than those used since', () => {
    const state = freshState();
    takeSteps(state, 400);
    const next = carry(state);
    const carriedKeys = Object.keys(next.budget.callDigests);
    takeSteps(next, 100);
    const after = carry(next);
    const keys = Object.keys(after.budget.callDigests);
    expect(keys).toHaveLength(CARRY_BOUNDS.callDigests);
    // The 100 new ones are all carried, newest last, after the newest 156 of the earlier ones.
    expect(keys.slice(0, 156)).toEqual(carriedKeys.slice(-156));
    expect(keys.at(-1)).toBe(keyOf(next.invocations.at(-1)!));
  });
});
