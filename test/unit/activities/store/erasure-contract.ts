import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  erasureOf,
  openEvidenceStore,
  readEventChain,
  sha256Text,
  type EvidenceStore,
  type StoredEvent,
} from '../../../../src/activities/store/index.js';
import { checkChain } from '../../../../src/client/proof/check-chain.js';
import { WITHHELD_BY_POLICY, isCommitment } from '../../../../src/contract/erasable-values.js';
import type { ContractTarget } from './contract.js';
import { agentEvent, expectCode, newRunId } from './fixtures.js';

const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:00:20.000Z';
const ERASE_AT = '2026-02-01T00:00:00.000Z';

/** Salted commitments and their erasure (docs/evidence-chain.md, "Erasable values"), once per backend. */
export function describeErasureContract(name: string, getTarget: () => ContractTarget): void {
  describe(`erasable values and crypto-shredding: ${name}`, () => {
    let url: string;
    let store: EvidenceStore;
    const raw = (sql: string) => getTarget().raw(url, sql);
    const started = (run: string, userId: string) =>
      agentEvent(run, 0, 'run.started', { tenantId: 'acme', userId }, AT);
    const contact = (run: string, seq: number, email: string, at = AT) =>
      agentEvent(run, seq, 'profile.contact', { customer: { email, tier: 'gold' } }, at);
    const ended = (run: string, seq: number) =>
      agentEvent(run, seq, 'state.transitioned', { fromStatus: 'running', toStatus: 'succeeded' }, AT);
    const verify = async (run: string) => {
      const chain = await readEventChain(store, run);
      return checkChain(sha256Text, run, chain.rows, chain.chainStart);
    };
    const bodies = async (run: string) =>
      (await readEventChain(store, run)).rows.map((r) => JSON.parse(r.body) as StoredEvent);
    /** Every row of every table that holds `text`, as `table: row`. */
    const rowsHolding = async (text: string) => {
      const tables = [
        'events',
        'runs',
        'failure_samples',
        'erasable_values',
        'erasures',
        'invocation_intents',
        'invocation_results',
        'artifacts',
        'blobs',
        'message_groups',
        'model_deltas',
      ];
      const hits: string[] = [];
      for (const t of tables)
        for (const row of await raw(`SELECT * FROM ${t}`))
          if (JSON.stringify(row).includes(text)) hits.push(`${t}: ${JSON.stringify(row)}`);
      return hits;
    };

    beforeAll(async () => {
      url = getTarget().freshUrl();
      store = await openEvidenceStore(url);
    });
    afterAll(() => store.close());

    it('stores a commitment in place of each erasable value, and reads join the value back', async () => {
      const run = newRunId('commit');
      await store.appendEvents([started(run, 'u-commit-1'), contact(run, 1, 'ann@example.com')]);
      const [first, second] = await bodies(run);
      expect(isCommitment(first!.data.userId)).toBe(true);
      expect(isCommitment((first!.envelope.data as Record<string, unknown>).userId)).toBe(true);
      expect(first!.data.tenantId).toBe('acme');
      expect(isCommitment((second!.data.customer as Record<string, unknown>).email)).toBe(true);
      expect((second!.data.customer as Record<string, unknown>).tier).toBe('gold');
      // Each value has its own salt: equal values do not give equal commitments.
      expect(first!.data.userId).not.toEqual((first!.envelope.data as Record<string, unknown>).userId);
      expect((await rowsHolding('u-commit-1')).map((h) => h.split(':')[0])).toEqual([
        'runs',
        'erasable_values',
        'erasable_values',
      ]);

      const events = await store.listEvents(run);
      expect(events[0]!.data).toEqual({ tenantId: 'acme', userId: 'u-commit-1' });
      expect(events[1]!.data).toEqual({ customer: { email: 'ann@example.com', tier: 'gold' } });
      expect((await store.getRun(run))?.userId).toBe('u-commit-1');
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
    });

    it('stores the same event sent again as the same bytes (its salt is kept), and a different one conflicts', async () => {
      const run = newRunId('again');
      await store.appendEvents([started(run, 'u-again'), contact(run, 1, 'bob@example.com')]);
      const before = await readEventChain(store, run);
      await store.appendEvents([started(run, 'u-again'), contact(run, 1, 'bob@example.com')]);
      expect((await readEventChain(store, run)).rows).toEqual(before.rows);
      await expectCode(store.appendEvents([contact(run, 1, 'eve@example.com')]), 'store.conflict');
    });

    it('drops the values of replaced provisional events with them', async () => {
      const run = newRunId('replace');
      await store.appendEvents([started(run, 'u-replace')]);
      await store.appendLastFlush([
        contact(run, 1, 'first@example.com'),
        contact(run, 2, 'orphan@example.com'),
      ]);
      await store.appendEvents([contact(run, 1, 'second@example.com', LATER)]);
      expect((await store.listEvents(run)).map((e) => e.data)).toEqual([
        { tenantId: 'acme', userId: 'u-replace' },
        { customer: { email: 'second@example.com', tier: 'gold' } },
      ]);
      expect(await rowsHolding('first@example.com')).toEqual([]);
      expect(await rowsHolding('orphan@example.com')).toEqual([]);
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
    });

    it('commits a commitment-shaped value a tool or model put in the data, so it reads back as given', async () => {
      const run = newRunId('forged');
      const forged = { $commit: `sha256:${'1'.repeat(64)}` };
      await store.appendEvents([agentEvent(run, 0, 'profile.note', { note: forged }, AT)]);
      expect((await store.listEvents(run))[0]!.data).toEqual({ note: forged });
      const [body] = await bodies(run);
      expect(isCommitment(body!.data.note)).toBe(true);
      expect(body!.data.note).not.toEqual(forged);
    });

    it('refuses bad requests, unknown runs and runs not finished, and erases nothing then', async () => {
      const run = newRunId('refuse');
      await store.appendEvents([started(run, 'u-refuse')]);
      const erasure = erasureOf(store);
      await expectCode(erasure.erase({ runId: run, actor: ' ', at: ERASE_AT }), 'store.invalid_record');
      await expectCode(erasure.erase({ actor: 'dpo', at: ERASE_AT }), 'store.invalid_record');
      await expectCode(
        erasure.erase({ runId: run, paths: ['userId'], actor: 'dpo', at: ERASE_AT }),
        'store.invalid_record',
      );
      await expectCode(
        erasure.erase({ runId: 'no-such-run', actor: 'dpo', at: ERASE_AT }),
        'erasure.not_found',
      );
      await expectCode(erasure.erase({ runId: run, actor: 'dpo', at: ERASE_AT }), 'erasure.run_active');
      expect((await store.listEvents(run))[0]!.data.userId).toBe('u-refuse');
      expect(await erasure.erasures(run)).toEqual([]);
    });

    it('erases a run: the chain still verifies, reads show withheld, the value is in no row, the erasure is recorded', async () => {
      const run = newRunId('erase');
      await store.appendEvents([started(run, 'u-erase-7'), contact(run, 1, 'cy@example.com'), ended(run, 2)]);
      const before = await readEventChain(store, run);
      const erasure = erasureOf(store);
      const records = await erasure.erase({
        runId: run,
        actor: 'dpo@example.com',
        reason: 'GDPR Art. 17',
        at: ERASE_AT,
      });
      expect(records).toEqual([
        {
          runId: run,
          seq: 1,
          erasedAt: ERASE_AT,
          actor: 'dpo@example.com',
          reason: 'GDPR Art. 17',
          paths: ['/customer/email', '/userId'],
          values: 4,
          events: 2,
          prev: null,
          hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as string,
        },
      ]);
      expect((await readEventChain(store, run)).rows).toEqual(before.rows);
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
      const events = await store.listEvents(run);
      expect(events[0]!.data).toEqual({ tenantId: 'acme', userId: WITHHELD_BY_POLICY });
      expect(events[1]!.data).toEqual({ customer: { email: WITHHELD_BY_POLICY, tier: 'gold' } });
      const record = await store.getRun(run);
      expect(record).toMatchObject({ userId: WITHHELD_BY_POLICY, tenantId: 'acme', status: 'succeeded' });
      expect((await store.listRuns({ tenantId: 'acme' })).map((r) => r.runId)).toContain(run);
      expect(await rowsHolding('u-erase-7')).toEqual([]);
      expect(await rowsHolding('cy@example.com')).toEqual([]);
      expect(await erasure.openings(run)).toEqual([]);
      expect(await erasure.erasures(run)).toEqual(records);
      // Nothing is left to erase: no second record.
      expect(await erasure.erase({ runId: run, actor: 'dpo@example.com', at: ERASE_AT })).toEqual([]);
    });

    it('erases one path, or one subject across runs', async () => {
      const a = newRunId('subject-a');
      const b = newRunId('subject-b');
      for (const run of [a, b])
        await store.appendEvents([
          started(run, `u-${run}`),
          contact(run, 1, 'dana@example.com'),
          ended(run, 2),
        ]);
      const erasure = erasureOf(store);
      const byPath = await erasure.erase({ runId: a, paths: ['/userId'], actor: 'dpo', at: ERASE_AT });
      expect(byPath.map((r) => [r.paths, r.values])).toEqual([[['/userId'], 2]]);
      expect((await store.listEvents(a))[1]!.data.customer).toEqual({
        email: 'dana@example.com',
        tier: 'gold',
      });

      const bySubject = await erasure.erase({ subject: 'dana@example.com', actor: 'dpo', at: ERASE_AT });
      expect(bySubject.map((r) => [r.runId, r.paths, r.values])).toEqual(
        [a, b].sort().map((run) => [run, ['/customer/email'], 2]),
      );
      expect(await rowsHolding('dana@example.com')).toEqual([]);
      expect((await store.listEvents(b))[0]!.data.userId).toBe(`u-${b}`);
      for (const run of [a, b]) expect(await verify(run)).toMatchObject({ ok: true });
    });
  });
}
