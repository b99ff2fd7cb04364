import { describe, expect, it } from 'vitest';
import { CarriedWaitSchema, carriedWaitOf } from '../../../../src/workflows/runner/carried-wait.js';

describe('the carried wait', () => {
  it('is absent when there is nothing to carry', () => {
    expect(carriedWaitOf({ waiting: undefined, mailbox: undefined, cancel: undefined })).toBeUndefined();
  });

  it('carries the signed wait, an accepted decision and a cancellation, without their tokens', () => {
    const carried = carriedWaitOf({
      waiting: { action: { actionId: 'i1.orderId' }, customer: false, dispatch: false },
      mailbox: {
        kind: 'reconcile',
        signal: { invocationSeq: 4, outcome: 'succeeded', actor: 'ops', token: 'tok-reconcile' },
      },
      cancel: { actor: 'ops', reason: 'stop', token: 'tok-cancel' },
    });
    expect(carried).toEqual({
      schemaVersion: 1,
      waiting: { action: { actionId: 'i1.orderId' }, customer: false, dispatch: false },
      mailbox: { kind: 'reconcile', signal: { invocationSeq: 4, outcome: 'succeeded', actor: 'ops' } },
      cancel: { actor: 'ops', reason: 'stop' },
    });
    expect(CarriedWaitSchema.safeParse(carried).success).toBe(true);
  });

  it('is checked like any input: unknown fields and oversized arguments are refused', () => {
    const waiting = {
      action: { actionId: 'a1.x', args: { blob: 'x'.repeat(70_000) } },
      customer: false,
      dispatch: true,
    };
    expect(CarriedWaitSchema.safeParse({ schemaVersion: 1, waiting }).success).toBe(false);
    expect(CarriedWaitSchema.safeParse({ schemaVersion: 1, extra: true }).success).toBe(false);
    expect(
      CarriedWaitSchema.safeParse({ schemaVersion: 1, mailbox: { kind: 'input', value: 'v', actor: 'u' } })
        .success,
    ).toBe(true);
    expect(
      CarriedWaitSchema.safeParse({
        schemaVersion: 1,
        mailbox: { kind: 'input', value: 'v'.repeat(10_001), actor: 'u' },
      }).success,
    ).toBe(false);
  });
});
