import { describe, expect, it } from 'vitest';
import {
  compactModelInput,
  compactToolInput,
  completeModelInput,
  completeToolInput,
} from '../../../../src/contract/compact-step-input.js';
import { argsDigestOf } from '../../../../src/workflows/runner/args-digest.js';
import { sha256Digest } from '../../../../src/activities/digest.js';

const input = {
  runId: 'run-1',
  seq: 4,
  tool: 'refund.create',
  version: 'v1',
  effect: 'write' as const,
  args: { orderId: 'o-1', amountCents: 1200, note: 'ü€ 😀', nested: { b: [1, 2], a: null } },
  events: { run: null, items: [] },
};

describe('the compact inputs of runToolV2 and callModelV2', () => {
  it('leaves out the digest and key the activity computes, and the activity computes the same', () => {
    const full = { ...input, argsDigest: argsDigestOf(input.args), idempotencyKey: 'run-1/4' };
    // The sandbox's digest (pure TypeScript) and the worker's (node:crypto) agree.
    expect(sha256Digest(input.args)).toBe(full.argsDigest);
    const compact = compactToolInput(full, 'run-1', argsDigestOf);
    expect(compact).not.toHaveProperty('argsDigest');
    expect(compact).not.toHaveProperty('idempotencyKey');
    expect(compact).not.toHaveProperty('runId');
    expect(completeToolInput(compact, 'run-1', sha256Digest)).toEqual(full);
  });

  it('keeps a digest or key that is not the default (they travel as they are)', () => {
    const full = { ...input, argsDigest: 'sha256:' + '0'.repeat(64), idempotencyKey: 'order-o-1/refund' };
    const compact = compactToolInput(full, 'run-1', argsDigestOf);
    expect(compact).toMatchObject({ argsDigest: full.argsDigest, idempotencyKey: full.idempotencyKey });
    expect(completeToolInput(compact, 'run-1', sha256Digest)).toEqual(full);
  });

  it('keeps a run id that is not the workflow id, and the key follows it', () => {
    const full = { ...input, argsDigest: argsDigestOf(input.args), idempotencyKey: 'run-1/4' };
    const compact = compactToolInput(full, 'another-workflow', argsDigestOf);
    expect(compact).toMatchObject({ runId: 'run-1' });
    expect(compact).not.toHaveProperty('idempotencyKey');
    expect(completeToolInput(compact, 'another-workflow', sha256Digest)).toEqual(full);
    const model = { runId: 'run-1', callSeq: 2 };
    expect(compactModelInput(model, 'run-1')).toEqual({ callSeq: 2 });
    expect(completeModelInput(compactModelInput(model, 'run-1'), 'run-1')).toEqual(model);
    expect(compactModelInput(model, 'other')).toEqual(model);
  });
});
