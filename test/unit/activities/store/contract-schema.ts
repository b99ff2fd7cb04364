import { describe, expect, it } from 'vitest';
import { openEvidenceStore, SCHEMA_VERSION } from '../../../../src/activities/store/index.js';
import type { SharedStore } from './contract.js';
import { event, expectCode, intent, newRunId } from './fixtures.js';

/** The EvidenceStore contract, part: Schema and lifecycle: migrations once, reopen, a newer schema, a bad URL. */
export function describeSchemaContract({ getTarget, open }: SharedStore): void {
  describe('schema and lifecycle', () => {
    it('applies each migration once when several stores open a fresh location at the same time', async () => {
      const at = getTarget().freshUrl();
      const stores = await Promise.all([open(at), open(at), open(at)]);
      const rows = await getTarget().raw(
        at,
        'SELECT version, CAST(COUNT(*) AS INTEGER) AS n FROM schema_migrations GROUP BY version ORDER BY version',
      );
      expect(rows.map((r) => [Number(r.version), Number(r.n)])).toEqual(
        Array.from({ length: SCHEMA_VERSION }, (_, i) => [i + 1, 1]),
      );
      const run = newRunId();
      await stores[0]?.appendEvent(event(run, 0));
      expect(await stores[2]?.listEvents(run)).toEqual([event(run, 0)]);
    });

    it('keeps everything across close and reopen', async () => {
      const at = getTarget().freshUrl();
      const run = newRunId();
      const first = await openEvidenceStore(at);
      await first.recordIntent(intent(run, 1));
      await first.appendMessageGroup(run, 1, [{ role: 'user', content: 'hi' }]);
      await first.close();
      await expectCode(first.listEvents(run), 'store.closed');
      const again = await open(at);
      expect((await again.getInvocation(run, 1))?.intents).toHaveLength(1);
      expect(await again.listMessageGroups(run)).toHaveLength(1);
    });

    it('fails closed on a schema newer than this build and changes nothing', async () => {
      const at = getTarget().freshUrl();
      await (await openEvidenceStore(at)).close();
      await getTarget().raw(
        at,
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from_the_future', '2030-01-01T00:00:00Z')",
      );
      await expectCode(openEvidenceStore(at), 'store.schema_too_new');
      const rows = await getTarget().raw(at, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => Number(r.version))).toEqual([
        ...Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
        999,
      ]);
    });

    it('rejects a bad URL with store.invalid_url', async () => {
      await expectCode(openEvidenceStore('mysql://localhost/db'), 'store.invalid_url');
      await expectCode(openEvidenceStore(''), 'store.invalid_url');
      await expectCode(openEvidenceStore('sqlite:'), 'store.invalid_url');
      await expectCode(openEvidenceStore('postgres://localhost/db?schema=Bad-Name'), 'store.invalid_url');
    });
  });
}
