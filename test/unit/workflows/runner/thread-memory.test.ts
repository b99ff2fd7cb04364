import { describe, expect, it } from 'vitest';
import type { MemoryEntry } from '../../../../src/contract/memory.js';
import { AllowAllPolicy, type Policy } from '../../../../src/workflows/policy/index.js';
import { ThreadMemory, type ThreadMemoryPort } from '../../../../src/workflows/runner/thread-memory.js';
import { freshState } from './fake-run.js';

/** A policy that denies the memory write tool and allows everything else. */
const denyMemory: Policy = {
  name: 'deny_memory',
  version: 'v1',
  evaluate: (req) => ({
    decision: req.tool.name === 'memory.write' ? 'deny' : 'allow',
    policyVersion: 'deny_memory@v1',
    reasonCodes: req.tool.name === 'memory.write' ? ['memory.not_allowed'] : [],
    obligations: [],
  }),
};

function memoryWith(policy: Policy, port: ThreadMemoryPort | undefined, failWrites = false) {
  const state = freshState();
  state.facts['refund.policy_id'] = 'R009';
  state.facts['order.amount_cents'] = 12_900;
  const events: { type: string; data: Record<string, unknown> }[] = [];
  const written: MemoryEntry[] = [];
  const memory = new ThreadMemory({
    state,
    policy,
    subject: { tenantId: 'acme', userId: 'u-1' },
    port: () =>
      port && {
        recall: (scope, now, limit) => port.recall(scope, now, limit),
        write: (e) =>
          failWrites ? Promise.reject(new Error('store down')) : (written.push(e), port.write(e)),
      },
    now: () => '2026-03-01T00:00:00.000Z',
    emit: (type, data) => events.push({ type, data }),
    evidenceOf: (name) =>
      name in state.facts ? { id: `run-1/1/${name}`, provenance: 'observed' } : undefined,
  });
  return { memory, events, written };
}

const port: ThreadMemoryPort = { recall: () => Promise.resolve([]), write: () => Promise.resolve() };

describe('ThreadMemory', () => {
  it('writes a verified fact with its scope, provenance and expiry', async () => {
    const { memory, events, written } = memoryWith(new AllowAllPolicy(), port);
    await expect(memory.remember('order.amount_cents', { ttlSeconds: 60 })).resolves.toEqual({
      written: true,
      entryId: 'run-1:memory:order.amount_cents',
      expiresAt: '2026-03-01T00:01:00.000Z',
    });
    expect(written[0]).toMatchObject({
      scope: { threadId: 'run-1', tenantId: 'acme', userId: 'u-1' },
      value: 12_900,
      trust: 'verified',
      provenance: {
        runId: 'run-1',
        evidenceArtifactId: 'run-1/1/order.amount_cents',
        evidenceProvenance: 'observed',
      },
    });
    expect(events.map((e) => e.type)).toEqual(['memory.written']);
  });

  it('refuses what the policy denies, a missing host and a failed store, and stores nothing', async () => {
    const denied = memoryWith(denyMemory, port);
    await expect(denied.memory.remember('refund.policy_id')).resolves.toMatchObject({
      written: false,
      code: 'memory.policy_denied',
    });
    expect(denied.written).toEqual([]);
    expect(denied.events[0]).toMatchObject({
      type: 'memory.refused',
      data: { code: 'memory.policy_denied' },
    });

    const none = memoryWith(new AllowAllPolicy(), undefined);
    await expect(none.memory.remember('refund.policy_id')).resolves.toMatchObject({
      code: 'memory.unavailable',
    });
    await expect(none.memory.recall()).resolves.toEqual([]);

    const down = memoryWith(new AllowAllPolicy(), port, true);
    await expect(down.memory.remember('refund.policy_id')).resolves.toMatchObject({
      code: 'memory.write_failed',
    });
    expect(down.events.map((e) => e.type)).toEqual(['memory.refused']);
  });

  it('caps the time to live at a year', async () => {
    const { memory } = memoryWith(new AllowAllPolicy(), port);
    await expect(
      memory.remember('refund.policy_id', { ttlSeconds: 10 * 365 * 24 * 3600 }),
    ).resolves.toMatchObject({
      expiresAt: '2027-03-01T00:00:00.000Z',
    });
  });
});
