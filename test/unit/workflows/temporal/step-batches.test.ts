import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../../src/contract/agent-event.js';
import { NO_DERIVATION } from '../../../../src/contract/packed-events-by-ref.js';
import { stepBatches } from '../../../../src/workflows/temporal/step-batches.js';

const event = (seq: number): AgentEvent => ({
  schemaVersion: '1',
  eventId: `run-1:${seq}`,
  traceId: 'run-1',
  runId: 'run-1',
  threadId: 'run-1',
  stepId: null,
  attemptId: null,
  sequence: seq,
  type: 'model.started',
  occurredAt: '2026-12-03T06:00:00.000Z',
  producer: 'model_gateway',
  data: { seq },
  dataClassification: 'internal',
  versions: {
    profile: 'p@v1',
    policy: 'allow_all@v1',
    toolRegistryDigest: 'sha256:0',
    modelRoute: 'r',
    configDigest: 'sha256:0',
  },
});

const failedWith = (type: string) =>
  new ActivityFailure(
    'activity failed',
    'runToolV2',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    'worker',
    ApplicationFailure.create({ type, nonRetryable: true, message: type }),
  );

describe('how an execution packs its step batches', () => {
  it('carries the header until an activity that carried it completed, then names it', () => {
    const b = stepBatches(true);
    const first = b.pack([event(1)], NO_DERIVATION);
    const parallel = b.pack([event(2)], NO_DERIVATION);
    expect(first.byRef && first.events.run).toBeTruthy();
    expect(parallel.byRef && parallel.events.run).toBeTruthy(); // nothing completed yet
    b.stored(first.header);
    const later = b.pack([event(3)], NO_DERIVATION);
    expect(later.byRef && later.events.run).toBeUndefined();
    expect(later.header).toBeUndefined();
    expect(later.digest).toBe(first.digest);
  });

  it('sends the header again after a worker could not restore it (a store that lost it heals)', () => {
    const b = stepBatches(true);
    const first = b.pack([event(1)], NO_DERIVATION);
    b.stored(first.header);
    const named = b.pack([event(2)], NO_DERIVATION);
    b.failed(named.digest, failedWith('tool.failed')); // another failure: the header stays known
    expect(b.pack([event(2)], NO_DERIVATION).header).toBeUndefined();
    b.failed(named.digest, failedWith('events.header_missing'));
    const again = b.pack([event(2)], NO_DERIVATION);
    expect(again.byRef && again.events.run).toBeTruthy();
    expect(again.header).toBe(first.digest);
  });

  it('on the first baseline every batch is the first form, with its header', () => {
    const b = stepBatches(false);
    const batch = b.pack([event(1)], NO_DERIVATION);
    expect(batch.byRef).toBe(false);
    expect(batch.events.run).toMatchObject({ runId: 'run-1' });
  });

  it('in the third step format the header carries the call defaults, and is named the same way once stored', () => {
    const calls = { configPin: { digest: 'sha256:0', modelRoute: 'r' }, tools: { 't@v1': 'sha256:1' } };
    const b = stepBatches(true, calls);
    expect(b.v3).toBe(true);
    const first = b.pack([event(1)], NO_DERIVATION);
    expect(first.v3 && first.events.run).toMatchObject({ runId: 'run-1', calls });
    expect(first.v3 && first.run).toEqual(first.events.run);
    // The digest covers the call defaults: another execution's defaults name another header.
    expect(stepBatches(true, {}).pack([event(1)], NO_DERIVATION).digest).not.toBe(first.digest);
    b.stored(first.header);
    const later = b.pack([event(2)], NO_DERIVATION);
    expect(later.v3 && later.events.run).toBeUndefined();
    expect(later.v3 && later.run).toMatchObject({ calls });
    expect(later.digest).toBe(first.digest);
    expect(stepBatches(true).v3).toBe(false);
  });
});
