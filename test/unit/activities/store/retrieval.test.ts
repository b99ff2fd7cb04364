import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openEvidenceStore,
  retrievalOf,
  type EvidenceStore,
} from '../../../../src/activities/store/index.js';
import type { SqlRetrieval } from '../../../../src/activities/store/sql-retrieval.js';
import { RETRIEVAL_MAX_EXCERPT_CHARS, type RetrievalDocument } from '../../../../src/contract/retrieval.js';
import { startTestPostgres, type TestPostgres } from '../../../support/postgres.js';
import { expectCode } from './fixtures.js';

let pg: TestPostgres | undefined;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
}, 60_000);

const DOCS: RetrievalDocument[] = [
  {
    docId: 'a-1',
    tenantId: 'acme',
    sourceRef: 'kb://acme/refunds',
    access: 'public',
    text: 'Refunds are paid within 14 days of the return.',
  },
  {
    docId: 'a-2',
    tenantId: 'acme',
    sourceRef: 'kb://acme/shipping',
    access: 'internal',
    text: 'Shipping refunds need a carrier report. Refunds refunds.',
  },
  {
    docId: 'a-3',
    tenantId: 'acme',
    sourceRef: 'kb://acme/salaries',
    access: 'restricted',
    text: 'Refunds team salaries: confidential.',
  },
  {
    docId: 'g-1',
    tenantId: 'globex',
    sourceRef: 'kb://globex/refunds',
    access: 'public',
    text: 'Globex refunds secret: the refund code is GLOBEX-42.',
  },
];

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`RetrievalPort on the evidence store: ${backend}`, () => {
    let store: EvidenceStore;
    let retrieval: SqlRetrieval;
    beforeAll(async () => {
      const url =
        backend === 'sqlite'
          ? `sqlite:${join(mkdtempSync(join(tmpdir(), 'retrieval-')), 'e.db')}`
          : pg!.freshUrl();
      store = await openEvidenceStore(url);
      retrieval = retrievalOf(store)!;
      for (const d of DOCS) expect(await retrieval.index(d)).toBe('inserted');
    }, 60_000);
    afterAll(async () => {
      await store?.close();
    });

    it('returns scored references of the tenant only, best first, trust untrusted', async () => {
      const got = await retrieval.retrieve({
        tenantId: 'acme',
        text: 'refunds',
        limit: 8,
        maxAccess: 'internal',
      });
      expect(got.map((r) => r.docId).sort()).toEqual(['a-1', 'a-2']);
      expect(got[0]!.docId).toBe('a-2');
      expect(got[0]!.score).toBeGreaterThanOrEqual(got[1]!.score);
      for (const r of got) expect(r).toMatchObject({ trust: 'untrusted' });
      // Another tenant's documents are never returned, whatever the query names.
      const other = await retrieval.retrieve({
        tenantId: 'acme',
        text: 'globex GLOBEX-42 refund code',
        limit: 8,
        maxAccess: 'restricted',
      });
      expect(other.map((r) => r.docId)).not.toContain('g-1');
      const globex = await retrieval.retrieve({
        tenantId: 'globex',
        text: 'refunds',
        limit: 8,
        maxAccess: 'restricted',
      });
      expect(globex.map((r) => r.docId)).toEqual(['g-1']);
    });

    it('respects the access label and the limit; excerpts are bounded', async () => {
      const all = await retrieval.retrieve({
        tenantId: 'acme',
        text: 'refunds',
        limit: 8,
        maxAccess: 'restricted',
      });
      expect(all.map((r) => r.docId).sort()).toEqual(['a-1', 'a-2', 'a-3']);
      const pub = await retrieval.retrieve({
        tenantId: 'acme',
        text: 'refunds',
        limit: 8,
        maxAccess: 'public',
      });
      expect(pub.map((r) => r.docId)).toEqual(['a-1']);
      const one = await retrieval.retrieve({
        tenantId: 'acme',
        text: 'refunds',
        limit: 1,
        maxAccess: 'restricted',
      });
      expect(one).toHaveLength(1);
      await retrieval.index({
        docId: 'a-long',
        tenantId: 'acme',
        sourceRef: 'kb://acme/long',
        access: 'public',
        text: `longdoc ${'x'.repeat(5_000)}`,
      });
      const [long] = await retrieval.retrieve({
        tenantId: 'acme',
        text: 'longdoc',
        limit: 1,
        maxAccess: 'public',
      });
      expect(long!.excerpt.length).toBe(RETRIEVAL_MAX_EXCERPT_CHARS);
    });

    it('search syntax in a query is only words; bad input changes nothing and is refused', async () => {
      for (const text of ['"refunds" OR *', 'refunds) | (globex', "refunds' OR 1=1 --", 'NEAR(refunds', ''])
        for (const r of await retrieval.retrieve({
          tenantId: 'acme',
          text,
          limit: 8,
          maxAccess: 'restricted',
        }))
          expect(r.docId.startsWith('a-')).toBe(true);
      await expectCode(
        retrieval.retrieve({ tenantId: '', text: 'refunds', limit: 8, maxAccess: 'public' }),
        'store.invalid_query',
      );
      await expectCode(
        retrieval.retrieve({ tenantId: 'acme', text: 'refunds', limit: 99, maxAccess: 'public' }),
        'store.invalid_query',
      );
      await expectCode(
        retrieval.index({
          docId: 'a-1',
          tenantId: 'acme',
          sourceRef: 'kb://x',
          access: 'public',
          text: 'other text',
        }),
        'store.conflict',
      );
      expect(await retrieval.index(DOCS[0]!)).toBe('identical');
      await expectCode(
        retrieval.index({ ...DOCS[0]!, docId: 'bad', access: 'secret' as never }),
        'store.invalid_record',
      );
    });
  });
}
