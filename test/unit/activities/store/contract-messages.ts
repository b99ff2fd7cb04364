import { describe, expect, it } from 'vitest';
import type { SharedStore } from './contract.js';
import { expectCode, newRunId } from './fixtures.js';

/** The EvidenceStore contract, part: Message groups, alone and with a model call's last deltas. */
export function describeMessagesContract({ store }: SharedStore): void {
  describe('message groups', () => {
    it('appends idempotently, conflicts on other content, lists by inclusive range', async () => {
      const run = newRunId();
      await store.appendMessageGroup(run, 2, [{ role: 'assistant', content: 'b' }]);
      await store.appendMessageGroup(run, 0, [{ role: 'user', content: 'a' }]);
      await store.appendMessageGroup(run, 0, [{ content: 'a', role: 'user' }]);
      await expectCode(
        store.appendMessageGroup(run, 0, [{ role: 'user', content: 'changed' }]),
        'store.conflict',
      );
      await store.appendMessageGroup(run, 5, []);
      expect((await store.listMessageGroups(run)).map((g) => g.seq)).toEqual([0, 2, 5]);
      expect(await store.listMessageGroups(run, { fromSeq: 1, toSeq: 2 })).toEqual([
        { runId: run, seq: 2, messages: [{ role: 'assistant', content: 'b' }] },
      ]);
    });
  });

  describe("message groups with a model call's last deltas", () => {
    it('writes the group and the deltas in one transaction, all or none', async () => {
      const run = newRunId();
      const d = (index: number, text = `t${index}`) => ({
        index,
        type: 'model.text.delta',
        data: { text },
      });
      await store.appendModelDeltas(run, 'call-1', [d(0)]);
      await store.appendMessageGroupWithDeltas(run, 1, [{ role: 'assistant', content: 'a' }], 'call-1', [
        d(1),
        d(2),
      ]);
      expect((await store.listModelDeltas(run, 'call-1')).map((x) => x.index)).toEqual([0, 1, 2]);
      expect((await store.listMessageGroups(run)).map((g) => g.seq)).toEqual([1]);
      // No deltas: the group alone.
      await store.appendMessageGroupWithDeltas(run, 2, [], 'call-2', []);
      expect((await store.listMessageGroups(run)).map((g) => g.seq)).toEqual([1, 2]);
      // The group conflicts (another attempt answered first): its deltas are not written.
      await expectCode(
        store.appendMessageGroupWithDeltas(run, 1, [{ role: 'assistant', content: 'b' }], 'call-1b', [d(0)]),
        'store.conflict',
      );
      expect(await store.listModelDeltas(run, 'call-1b')).toEqual([]);
      // A delta conflicts: the group is not written.
      await expectCode(
        store.appendMessageGroupWithDeltas(run, 3, [{ role: 'assistant', content: 'c' }], 'call-1', [
          d(3),
          d(2, 'changed'),
        ]),
        'store.conflict',
      );
      expect((await store.listMessageGroups(run)).map((g) => g.seq)).toEqual([1, 2]);
      // An index given twice is refused before any I/O.
      await expectCode(
        store.appendMessageGroupWithDeltas(run, 3, [], 'call-3', [d(0), d(0)]),
        'store.invalid_record',
      );
      expect((await store.listMessageGroups(run)).map((g) => g.seq)).toEqual([1, 2]);
    });
  });
}
