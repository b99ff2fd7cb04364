import { describe, expect, it } from 'vitest';
import type { SharedStore } from './contract.js';
import { agentEvent as runEvent, event, expectCode, newRunId, RUN_VERSIONS } from './fixtures.js';

/** The EvidenceStore contract, part: Events: one per (runId, seq), batches, the projected run record and retried flushes. */
export function describeEventsContract({ store }: SharedStore): void {
  describe('events', () => {
    it('keeps one event per (runId, seq) and unique event ids', async () => {
      const run = newRunId();
      await store.appendEvent(event(run, 1));
      await store.appendEvent(event(run, 1));
      await expectCode(store.appendEvent(event(run, 1, { data: { step: 'other' } })), 'store.conflict');
      await expectCode(store.appendEvent(event(run, 2, { eventId: `${run}-ev-1` })), 'store.conflict');
      expect(await store.listEvents(run)).toEqual([event(run, 1)]);
    });

    it('appends a batch in one transaction: all or nothing, idempotent', async () => {
      const run = newRunId();
      await store.appendEvents([]);
      await store.appendEvent(event(run, 0));
      await store.appendEvents([event(run, 0), event(run, 1), event(run, 2)]);
      await store.appendEvents([event(run, 1), event(run, 2)]);
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([0, 1, 2]);
      // a conflict in the middle writes none of the batch
      await expectCode(
        store.appendEvents([event(run, 3), event(run, 1, { data: { step: 'other' } }), event(run, 4)]),
        'store.conflict',
      );
      await expectCode(
        store.appendEvents([event(run, 5), { ...event(run, 6), type: '' }]),
        'store.invalid_record',
      );
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([0, 1, 2]);
    });

    it('keeps a run record projected from the events: versions, status, and the end', async () => {
      const run = newRunId();
      const versions = RUN_VERSIONS;
      const agentEvent = (seq: number, type: string, data: Record<string, unknown>, at: string) => {
        const e = event(run, seq, { type, data, occurredAt: at });
        return { ...e, envelope: { ...e.envelope, type, data, versions } };
      };
      // events without pinned versions (not an agent run) make no record
      await store.appendEvent(event(newRunId(), 0));
      await store.appendEvents([
        agentEvent(0, 'run.created', { versions }, '2026-01-01T00:00:00.000Z'),
        agentEvent(1, 'state.transitioned', { toStatus: 'running', patch: {} }, '2026-01-01T00:00:01.000Z'),
        agentEvent(
          2,
          'state.transitioned',
          {
            toStatus: 'awaiting_confirmation',
            node: 'request_confirmation',
            patch: { waitingReason: 'confirmation_required' },
          },
          '2026-01-01T00:00:02.000Z',
        ),
      ]);
      expect(await store.getRun(run)).toMatchObject({
        runId: run,
        versions,
        status: 'awaiting_confirmation',
        waitingReason: 'confirmation_required',
        node: 'request_confirmation',
        createdAt: '2026-01-01T00:00:00.000Z',
        endedAt: null,
        lastSeq: 2,
      });
      expect((await store.listRuns({ status: 'awaiting_confirmation' })).map((r) => r.runId)).toContain(run);
      const end = agentEvent(
        3,
        'run.completed',
        { status: 'succeeded', output: { outcome: 'refunded' }, budget: { steps: 9, costUsd: 0 } },
        '2026-01-01T00:00:09.000Z',
      );
      await store.appendEvents([end]);
      // a repeated batch (a retried activity) changes nothing
      await store.appendEvents([end]);
      const done = await store.getRun(run);
      expect(done).toMatchObject({
        status: 'succeeded',
        waitingReason: null,
        endedAt: '2026-01-01T00:00:09.000Z',
        output: { outcome: 'refunded' },
        budget: { steps: 9, costUsd: 0 },
        terminalReason: null,
        lastSeq: 3,
      });
      expect((await store.listRuns({ status: 'awaiting_confirmation' })).map((r) => r.runId)).not.toContain(
        run,
      );
      // a failed batch moves nothing
      await expectCode(
        store.appendEvents([
          agentEvent(4, 'run.failed', { status: 'failed' }, '2026-01-01T00:00:10.000Z'),
          { ...agentEvent(3, 'other', {}, '2026-01-01T00:00:10.000Z') },
        ]),
        'store.conflict',
      );
      expect(await store.getRun(run)).toEqual(done);
    });

    it("a retried last flush keeps the same events, and replaces an abandoned attempt's other ones with the record projected again", async () => {
      const run = newRunId('last-flush');
      const versions = RUN_VERSIONS;
      const agentEvent = (seq: number, type: string, data: Record<string, unknown>, at: string) =>
        runEvent(run, seq, type, data, at);
      const first = '2026-01-01T00:00:00.000Z';
      const retry = '2026-01-01T00:00:20.000Z';
      const retry2 = '2026-01-01T00:00:30.000Z';
      await store.appendEvents([
        agentEvent(0, 'run.created', { versions }, first),
        agentEvent(1, 'state.transitioned', { toStatus: 'running', patch: {} }, first),
      ]);
      await store.appendLastFlush([]);
      // The abandoned attempt: the tool's result, then the run ends failed.
      await store.appendLastFlush([
        agentEvent(2, 'tool.completed', { seq: 1 }, first),
        agentEvent(3, 'state.transitioned', { toStatus: 'failed', patch: {} }, first),
        agentEvent(4, 'run.failed', { status: 'failed', reason: { code: 'x' } }, first),
      ]);
      expect(await store.getRun(run)).toMatchObject({ status: 'failed', lastSeq: 4 });
      // The same attempt again, and the same events with a later clock: the first record stands.
      await store.appendLastFlush([
        agentEvent(2, 'tool.completed', { seq: 1 }, retry),
        agentEvent(3, 'state.transitioned', { toStatus: 'failed', patch: {} }, retry),
        agentEvent(4, 'run.failed', { status: 'failed', reason: { code: 'x' } }, retry),
      ]);
      expect((await store.listEvents(run)).map((e) => [e.seq, e.type, e.occurredAt])).toEqual([
        [0, 'run.created', first],
        [1, 'state.transitioned', first],
        [2, 'tool.completed', first],
        [3, 'state.transitioned', first],
        [4, 'run.failed', first],
      ]);
      // The same events, but one says more (a refusal count that grew): the retry's stand.
      await store.appendLastFlush([
        agentEvent(2, 'tool.completed', { seq: 1 }, retry),
        agentEvent(3, 'state.transitioned', { toStatus: 'failed', patch: {} }, retry),
        agentEvent(4, 'run.failed', { status: 'failed', reason: { code: 'y' } }, retry),
      ]);
      expect((await store.listEvents(run)).map((e) => [e.seq, e.occurredAt, e.data])).toEqual([
        [0, first, { versions }],
        [1, first, { toStatus: 'running', patch: {} }],
        [2, retry, { seq: 1 }],
        [3, retry, { toStatus: 'failed', patch: {} }],
        [4, retry, { status: 'failed', reason: { code: 'y' } }],
      ]);
      // The recorded attempt handled a signal first and went on waiting: its events replace the
      // abandoned attempt's from the batch's first sequence on, the one it did not write included.
      await store.appendLastFlush([
        agentEvent(2, 'human.signal_rejected', { signal: 'approve' }, retry2),
        agentEvent(3, 'tool.completed', { seq: 1 }, retry2),
      ]);
      expect((await store.listEvents(run)).map((e) => [e.seq, e.type, e.occurredAt])).toEqual([
        [0, 'run.created', first],
        [1, 'state.transitioned', first],
        [2, 'human.signal_rejected', retry2],
        [3, 'tool.completed', retry2],
      ]);
      expect(await store.getRun(run)).toMatchObject({
        status: 'running',
        endedAt: null,
        lastSeq: 3,
        updatedAt: retry2,
      });
      // The abandoned attempt's flush committing late (its worker stalled) changes nothing: refused when it
      // differs, a no-op when it holds the stored events, never appending what the retry did not record.
      const storedNow = await store.listEvents(run);
      await expectCode(
        store.appendLastFlush([
          agentEvent(2, 'tool.completed', { seq: 1 }, first),
          agentEvent(3, 'state.transitioned', { toStatus: 'failed', patch: {} }, first),
        ]),
        'store.conflict',
      );
      await store.appendLastFlush([
        agentEvent(2, 'human.signal_rejected', { signal: 'approve' }, first),
        agentEvent(3, 'tool.completed', { seq: 1 }, first),
        agentEvent(4, 'run.failed', { status: 'failed', reason: { code: 'x' } }, first),
      ]);
      expect(await store.listEvents(run)).toEqual(storedNow);
      // Later events project as usual; events before the batch are never touched.
      await store.appendEvents([
        agentEvent(4, 'state.transitioned', { toStatus: 'succeeded', patch: {} }, retry2),
      ]);
      expect(await store.getRun(run)).toMatchObject({ status: 'succeeded', lastSeq: 4 });
    });

    it("the retried attempt's next activity replaces an abandoned last flush's provisional events; final events are never replaced", async () => {
      const run = newRunId('abandoned-flush');
      const versions = RUN_VERSIONS;
      const agentEvent = (seq: number, type: string, data: Record<string, unknown>, at: string) =>
        runEvent(run, seq, type, data, at);
      const first = '2026-01-01T00:00:00.000Z';
      const retry = '2026-01-01T00:00:20.000Z';
      await store.appendEvents([
        agentEvent(1, 'run.created', { versions }, first),
        agentEvent(2, 'state.transitioned', { toStatus: 'awaiting_input', patch: {} }, first),
      ]);
      // The abandoned attempt: the wait moved to a new history (its last flush).
      await store.appendLastFlush([
        agentEvent(3, 'human.signal_rejected', { signal: 'provideInput' }, first),
        agentEvent(4, 'state.transitioned', { toStatus: 'running', patch: {} }, first),
        agentEvent(5, 'checkpoint.saved', { reason: 'continue_as_new' }, first),
      ]);
      // The retried attempt took the decision that came meanwhile and went on: its next activity.
      await store.appendEvents([
        agentEvent(3, 'human.signal_rejected', { signal: 'provideInput' }, retry),
        agentEvent(4, 'human.decided', { actionId: 'a1' }, retry),
      ]);
      expect((await store.listEvents(run)).map((e) => [e.seq, e.type, e.occurredAt])).toEqual([
        [1, 'run.created', first],
        [2, 'state.transitioned', first],
        [3, 'human.signal_rejected', retry],
        [4, 'human.decided', retry],
      ]);
      expect(await store.getRun(run)).toMatchObject({ status: 'awaiting_input', lastSeq: 4 });
      // Those are final now: a last flush (or any batch) that differs is refused, whatever its clock.
      const later = '2026-01-01T00:00:40.000Z';
      await expectCode(
        store.appendLastFlush([agentEvent(4, 'run.completed', { status: 'succeeded' }, later)]),
        'store.conflict',
      );
      await expectCode(
        store.appendEvents([agentEvent(2, 'state.transitioned', { toStatus: 'failed', patch: {} }, later)]),
        'store.conflict',
      );
      // A batch that fails on a conflict midway writes none of its events.
      await expectCode(
        store.appendEvents([
          agentEvent(5, 'tool.completed', {}, later),
          agentEvent(4, 'run.completed', {}, later),
        ]),
        'store.conflict',
      );
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    });

    it('a retried flush that begins with events stored before, exactly as it holds them, settles from the first that differs', async () => {
      const run = newRunId('resent');
      const versions = RUN_VERSIONS;
      const agentEvent = (seq: number, type: string, data: Record<string, unknown>, at: string) =>
        runEvent(run, seq, type, data, at);
      const first = '2026-01-01T00:00:00.000Z';
      const retry = '2026-01-01T00:00:20.000Z';
      const created = agentEvent(1, 'run.created', { versions }, first);
      // A model call stored these with its answer, then failed: the workflow sends them again.
      const resent = [created, agentEvent(2, 'model.completed', {}, first)];
      await store.appendEvents(resent);
      await store.appendLastFlush([...resent, agentEvent(3, 'run.failed', { status: 'failed' }, first)]);
      // The retried attempt: the same two, then another ending.
      await store.appendLastFlush([
        ...resent,
        agentEvent(3, 'human.signal_rejected', {}, retry),
        agentEvent(4, 'run.completed', { status: 'succeeded' }, retry),
      ]);
      expect((await store.listEvents(run)).map((e) => [e.seq, e.type])).toEqual([
        [1, 'run.created'],
        [2, 'model.completed'],
        [3, 'human.signal_rejected'],
        [4, 'run.completed'],
      ]);
      // The record projected again keeps every column, its creation time included.
      const created0 = (await store.listRuns({ createdFrom: first, createdBefore: retry })).map(
        (r) => r.runId,
      );
      expect(created0).toContain(run);
      expect(await store.getRun(run)).toMatchObject({ createdAt: first, lastSeq: 4 });
    });
  });
}
