import { describe, expect, it } from 'vitest';
import { erasureOf, readEventChain, sha256Text } from '../../../../src/activities/store/index.js';
import { checkChain } from '../../../../src/client/proof/check-chain.js';
import { WITHHELD_BY_POLICY, isCommitment } from '../../../../src/contract/erasable-values.js';
import {
  RUN_AT as AT,
  finishedRun,
  runContact,
  runStarted as started,
  storedBodies,
  useContractStore,
} from '../../../support/erasure-preamble.js';
import type { ContractTarget } from './contract.js';
import { agentEvent, expectCode, newRunId } from './fixtures.js';

const LATER = '2026-01-01T00:00:20.000Z';
const ERASE_AT = '2026-02-01T00:00:00.000Z';

/** Salted commitments and their erasure (docs/evidence-chain.md, "Erasable values"), once per backend. */
export function describeErasureContract(name: string, getTarget: () => ContractTarget): void {
  describe(`erasable values and crypto-shredding: ${name}`, () => {
    const backend = useContractStore(getTarget);
    const { raw } = backend;
    const contact = (run: string, seq: number, email: string, at = AT) =>
      runContact(run, seq, { email, tier: 'gold' }, at);
    /** A finished run (started, contact at seq 1, ended at seq 2) for `userId` and the contact's `email`. */
    const finished = (run: string, userId: string, email: string) =>
      finishedRun(run, userId, { email, tier: 'gold' });
    const verify = async (run: string) => {
      const chain = await readEventChain(backend.store, run);
      return checkChain(sha256Text, run, chain.rows, chain.chainStart);
    };
    const bodies = (run: string) => storedBodies(backend.store, run);
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

    it('stores a commitment in place of each erasable value, and reads join the value back', async () => {
      const run = newRunId('commit');
      await backend.store.appendEvents([started(run, 'u-commit-1'), contact(run, 1, 'ann@example.com')]);
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

      const events = await backend.store.listEvents(run);
      expect(events[0]!.data).toEqual({ tenantId: 'acme', userId: 'u-commit-1' });
      expect(events[1]!.data).toEqual({ customer: { email: 'ann@example.com', tier: 'gold' } });
      expect((await backend.store.getRun(run))?.userId).toBe('u-commit-1');
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
    });

    it('stores the same event sent again as the same bytes (its salt is kept), and a different one conflicts', async () => {
      const run = newRunId('again');
      await backend.store.appendEvents([started(run, 'u-again'), contact(run, 1, 'bob@example.com')]);
      const before = await readEventChain(backend.store, run);
      await backend.store.appendEvents([started(run, 'u-again'), contact(run, 1, 'bob@example.com')]);
      expect((await readEventChain(backend.store, run)).rows).toEqual(before.rows);
      await expectCode(backend.store.appendEvents([contact(run, 1, 'eve@example.com')]), 'store.conflict');
    });

    it('drops the values of replaced provisional events with them', async () => {
      const run = newRunId('replace');
      await backend.store.appendEvents([started(run, 'u-replace')]);
      await backend.store.appendLastFlush([
        contact(run, 1, 'first@example.com'),
        contact(run, 2, 'orphan@example.com'),
      ]);
      await backend.store.appendEvents([contact(run, 1, 'second@example.com', LATER)]);
      expect((await backend.store.listEvents(run)).map((e) => e.data)).toEqual([
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
      await backend.store.appendEvents([agentEvent(run, 0, 'profile.note', { note: forged }, AT)]);
      expect((await backend.store.listEvents(run))[0]!.data).toEqual({ note: forged });
      const [body] = await bodies(run);
      expect(isCommitment(body!.data.note)).toBe(true);
      expect(body!.data.note).not.toEqual(forged);
    });

    it('refuses bad requests, unknown runs and runs not finished, and erases nothing then', async () => {
      const run = newRunId('refuse');
      await backend.store.appendEvents([started(run, 'u-refuse')]);
      const erasure = erasureOf(backend.store);
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
      expect((await backend.store.listEvents(run))[0]!.data.userId).toBe('u-refuse');
      expect(await erasure.erasures(run)).toEqual([]);
    });

    it('erases a run: the chain still verifies, reads show withheld, the value is in no row, the erasure is recorded', async () => {
      const run = newRunId('erase');
      await backend.store.appendEvents(finished(run, 'u-erase-7', 'cy@example.com'));
      const before = await readEventChain(backend.store, run);
      const erasure = erasureOf(backend.store);
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
      expect((await readEventChain(backend.store, run)).rows).toEqual(before.rows);
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
      const events = await backend.store.listEvents(run);
      expect(events[0]!.data).toEqual({ tenantId: 'acme', userId: WITHHELD_BY_POLICY });
      expect(events[1]!.data).toEqual({ customer: { email: WITHHELD_BY_POLICY, tier: 'gold' } });
      const record = await backend.store.getRun(run);
      expect(record).toMatchObject({ userId: WITHHELD_BY_POLICY, tenantId: 'acme', status: 'succeeded' });
      expect((await backend.store.listRuns({ tenantId: 'acme' })).map((r) => r.runId)).toContain(run);
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
        await backend.store.appendEvents(finished(run, `u-${run}`, 'dana@example.com'));
      const erasure = erasureOf(backend.store);
      const byPath = await erasure.erase({ runId: a, paths: ['/userId'], actor: 'dpo', at: ERASE_AT });
      expect(byPath.map((r) => [r.paths, r.values])).toEqual([[['/userId'], 2]]);
      expect((await backend.store.listEvents(a))[1]!.data.customer).toEqual({
        email: 'dana@example.com',
        tier: 'gold',
      });

      const bySubject = await erasure.erase({ subject: 'dana@example.com', actor: 'dpo', at: ERASE_AT });
      expect(bySubject.map((r) => [r.runId, r.paths, r.values])).toEqual(
        [a, b].sort().map((run) => [run, ['/customer/email'], 2]),
      );
      expect(await rowsHolding('dana@example.com')).toEqual([]);
      expect((await backend.store.listEvents(b))[0]!.data.userId).toBe(`u-${b}`);
      for (const run of [a, b]) expect(await verify(run)).toMatchObject({ ok: true });
    });
  });
}
