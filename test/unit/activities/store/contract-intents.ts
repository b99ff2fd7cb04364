import { describe, expect, it } from 'vitest';
import type { SharedStore } from './contract.js';
import { event, expectCode, intent, newRunId, result } from './fixtures.js';

/** The EvidenceStore contract, part: Intents: recorded once, idempotent, and with the run's events. */
export function describeIntentsContract({ store }: SharedStore): void {
  describe('intents', () => {
    it('records an intent once; the same intent again is a no-op, recordedAt aside', async () => {
      const run = newRunId();
      await store.recordIntent(intent(run, 1));
      await store.recordIntent(intent(run, 1, { recordedAt: '2026-02-02T00:00:00.000Z' }));
      const got = await store.getInvocation(run, 1);
      expect(got?.intents).toEqual([intent(run, 1)]);
      expect(got?.result).toBeUndefined();
    });

    it('rejects a different intent under the same (runId, seq, attempt) and keeps the first', async () => {
      const run = newRunId();
      await store.recordIntent(intent(run, 1));
      await expectCode(
        store.recordIntent(intent(run, 1, { args: { orderId: 'o-2', amount: 1 } })),
        'store.conflict',
      );
      await expectCode(store.recordIntent(intent(run, 1, { workerIdentity: 'worker-b' })), 'store.conflict');
      expect((await store.getInvocation(run, 1))?.intents).toEqual([intent(run, 1)]);
    });

    it('keeps attempts apart and reports the latest attempt result only', async () => {
      const run = newRunId();
      await store.recordIntent(intent(run, 3, { effect: 'read', tool: 'order.get' }));
      await store.recordResult(result(run, 3, { status: 'failed_retryable', errorCode: 'timeout' }), []);
      await store.recordIntent(intent(run, 3, { attempt: 2, effect: 'read', tool: 'order.get' }));
      const got = await store.getInvocation(run, 3);
      expect(got?.intents.map((i) => i.attempt)).toEqual([1, 2]);
      expect(got?.results.map((r) => r.status)).toEqual(['failed_retryable']);
      expect(got?.result).toBeUndefined();
      await store.recordResult(result(run, 3, { attempt: 2 }), []);
      expect((await store.getInvocation(run, 3))?.result?.attempt).toBe(2);
    });

    it('never reuses a seq for another call across attempts', async () => {
      const run = newRunId();
      await store.recordIntent(intent(run, 1));
      await expectCode(
        store.recordIntent(intent(run, 1, { attempt: 2, args: { orderId: 'o-9', amount: 1 } })),
        'store.conflict',
      );
      await expectCode(
        store.recordIntent(intent(run, 1, { attempt: 2, tool: 'refund.cancel' })),
        'store.conflict',
      );
      await store.recordIntent(intent(run, 1, { attempt: 2, workerIdentity: 'worker-b' }));
      expect((await store.getInvocation(run, 1))?.intents.map((i) => i.workerIdentity)).toEqual([
        'worker-a',
        'worker-b',
      ]);
    });

    it('rejects invalid and oversized intents before writing', async () => {
      const run = newRunId();
      await expectCode(
        store.recordIntent({ ...intent(run, 1), effect: 'delete' as 'write' }),
        'store.invalid_record',
      );
      await expectCode(
        store.recordIntent(intent(run, 1, { args: { blob: 'x'.repeat(70_000) } })),
        'store.payload_too_large',
      );
      expect(await store.getInvocation(run, 1)).toBeUndefined();
    });

    it('lists the invocations of a run ordered by seq', async () => {
      const run = newRunId();
      for (const seq of [5, 2, 9]) await store.recordIntent(intent(run, seq));
      await store.recordResult(result(run, 2), []);
      const list = await store.listInvocations(run);
      expect(list.map((i) => [i.seq, i.result?.status])).toEqual([
        [2, 'succeeded'],
        [5, undefined],
        [9, undefined],
      ]);
    });
  });

  describe("intents with the run's events", () => {
    it('writes the intent and the events in one transaction, all or none', async () => {
      const run = newRunId();
      await store.recordIntentWithEvents(intent(run, 1), [event(run, 1), event(run, 2)]);
      expect((await store.getInvocation(run, 1))?.intents).toEqual([intent(run, 1)]);
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([1, 2]);
      // The same again is a no-op for both.
      await store.recordIntentWithEvents(intent(run, 1), [event(run, 1), event(run, 2)]);
      expect(await store.listEvents(run)).toHaveLength(2);
      // A conflicting event: the intent of another attempt is not written either.
      await expectCode(
        store.recordIntentWithEvents(intent(run, 1, { attempt: 2 }), [
          event(run, 3),
          event(run, 2, { data: { step: 'other' } }),
        ]),
        'store.conflict',
      );
      expect((await store.getInvocation(run, 1))?.intents.map((i) => i.attempt)).toEqual([1]);
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([1, 2]);
      // A conflicting intent: the events are not written either.
      await expectCode(
        store.recordIntentWithEvents(intent(run, 1, { args: { orderId: 'o-2', amount: 1 } }), [
          event(run, 3),
        ]),
        'store.conflict',
      );
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([1, 2]);
      // An invalid event is refused before any I/O: no intent of seq 2.
      await expectCode(
        store.recordIntentWithEvents(intent(run, 2), [{ ...event(run, 4), type: '' }]),
        'store.invalid_record',
      );
      expect(await store.getInvocation(run, 2)).toBeUndefined();
    });

    it("a fast read's events are provisional: a retried task's later attempt replaces them", async () => {
      const run = newRunId();
      // The abandoned task's try (a local activity): its events stored provisional with its intent.
      await store.recordIntentWithEvents(intent(run, 1), [event(run, 1), event(run, 2)], {
        provisional: true,
      });
      // The retried task's try: the same sequences, another clock and content, the next attempt.
      const later = { occurredAt: '2026-01-01T00:00:09.000Z' };
      await store.recordIntentWithEvents(
        intent(run, 1, { attempt: 2 }),
        [event(run, 1, later), event(run, 2, { ...later, data: { step: 'retried' } })],
        { provisional: true },
      );
      expect((await store.getInvocation(run, 1))?.intents.map((i) => i.attempt)).toEqual([1, 2]);
      expect((await store.listEvents(run)).map((e) => e.data)).toEqual([{ step: 's1' }, { step: 'retried' }]);
      // Final events (a regular activity's) are never replaced.
      const other = newRunId();
      await store.recordIntentWithEvents(intent(other, 1), [event(other, 1)]);
      await expectCode(
        store.recordIntentWithEvents(
          intent(other, 1, { attempt: 2 }),
          [event(other, 1, { ...later, data: { step: 'x' } })],
          {
            provisional: true,
          },
        ),
        'store.conflict',
      );
    });
  });
}
