import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../../src/activities/digest.js';
import type { SharedStore } from './contract.js';
import { event, expectCode, newRunId } from './fixtures.js';

/** The EvidenceStore contract, part: Model deltas and content-addressed blobs. */
export function describePayloadsContract(shared: SharedStore): void {
  const { store, getTarget } = shared;
  let url: string;
  beforeAll(() => {
    url = shared.url();
  });

  describe('model deltas', () => {
    it('appends idempotently by index, all or none, and lists after an index', async () => {
      const run = newRunId();
      const d = (index: number, text = `t${index}`) => ({
        index,
        type: 'model.text.delta',
        data: { text },
      });
      await store.appendModelDeltas(run, 'call-1', [d(0), d(1), d(2)]);
      await store.appendModelDeltas(run, 'call-1', [d(1), d(2), d(3)]);
      await expectCode(store.appendModelDeltas(run, 'call-1', [d(4), d(2, 'changed')]), 'store.conflict');
      expect((await store.listModelDeltas(run, 'call-1')).map((x) => x.index)).toEqual([0, 1, 2, 3]);
      expect(await store.listModelDeltas(run, 'call-1', 1)).toEqual([d(2), d(3)]);
      expect(await store.listModelDeltas(run, 'call-2')).toEqual([]);
    });
  });

  describe('blobs', () => {
    it('stores content-addressed blobs and detects corruption', async () => {
      const value = { context: ['a', 'b'], n: 1, nested: { z: true, a: null } };
      const put = await store.putBlob(value);
      expect(put.digest).toBe(sha256Digest(value));
      expect(put.ref).toBe(`blob://${put.digest}`);
      expect(await store.putBlob({ nested: { a: null, z: true }, n: 1, context: ['a', 'b'] })).toEqual(put);
      expect(await store.getBlob(put.ref)).toEqual(value);
      await expectCode(store.getBlob(`blob://sha256:${'0'.repeat(64)}`), 'store.not_found');
      await expectCode(store.getBlob('blob://md5:abc'), 'store.invalid_ref');
      await getTarget().raw(
        url,
        `UPDATE blobs SET body = '{"tampered":true}' WHERE digest = '${put.digest}'`,
      );
      await expectCode(store.getBlob(put.ref), 'store.digest_mismatch');
      await expectCode(store.putBlob(value), 'store.digest_mismatch');
    });

    it('stores blobs and an index over their references in one transaction, all or none', async () => {
      const run = newRunId();
      const values = [{ chunk: 1, items: ['x'] }, { chunk: 2 }, { chunk: 1, items: ['x'] }];
      const ref = await store.putIndexedBlobs(values, (refs) => ({ chunks: refs.map((r) => r.ref) }), [
        event(run, 1),
        event(run, 2),
      ]);
      const index = (await store.getBlob(ref.ref)) as { chunks: string[] };
      expect(index.chunks).toEqual(values.map((v) => `blob://${sha256Digest(v)}`));
      expect(await Promise.all(index.chunks.map((r) => store.getBlob(r)))).toEqual(values);
      expect(ref).toEqual(await store.putBlob(index));
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([1, 2]);
      // Without items and events: the index alone.
      expect(await store.putIndexedBlobs([], () => ({ empty: true }), [])).toEqual(
        await store.putBlob({ empty: true }),
      );
      // A value that is not JSON fails the whole call before anything is stored.
      const fresh = { chunk: 3, at: 'never stored' };
      await expectCode(
        store.putIndexedBlobs([fresh, { bad: () => 1 }], () => ({}), []),
        'store.invalid_record',
      );
      await expectCode(store.getBlob(`blob://${sha256Digest(fresh)}`), 'store.not_found');
      // An event that conflicts with a stored one rolls back every blob, the index too.
      const other = newRunId();
      await store.appendEvent(event(other, 1));
      const index2 = { chunks: 'never stored either' };
      await expectCode(
        store.putIndexedBlobs([fresh], () => index2, [
          event(other, 2),
          event(other, 1, { data: { step: 'other' } }),
        ]),
        'store.conflict',
      );
      await expectCode(store.getBlob(`blob://${sha256Digest(fresh)}`), 'store.not_found');
      await expectCode(store.getBlob(`blob://${sha256Digest(index2)}`), 'store.not_found');
      expect((await store.listEvents(other)).map((e) => e.seq)).toEqual([1]);
      // An invalid event is refused before any I/O.
      await expectCode(
        store.putIndexedBlobs([fresh], () => index2, [{ ...event(other, 3), seq: -1 }]),
        'store.invalid_record',
      );
      await expectCode(store.getBlob(`blob://${sha256Digest(fresh)}`), 'store.not_found');
    });
  });
}
