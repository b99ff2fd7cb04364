import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openEvidenceStore,
  readEventChain,
  sha256Text,
  type EvidenceStore,
} from '../../../../src/activities/store/index.js';
import { eventHash, genesisHash } from '../../../../src/contract/evidence-chain.js';
import { checkChain } from '../../../../src/client/proof/check-chain.js';
import type { ContractTarget } from './contract.js';
import { agentEvent, newRunId } from './fixtures.js';

const FIRST = '2026-01-01T00:00:00.000Z';
const RETRY = '2026-01-01T00:00:20.000Z';

/** The hash chain of the events (docs/evidence-chain.md), run once per backend. */
export function describeEventChainContract(name: string, getTarget: () => ContractTarget): void {
  describe(`event hash chain: ${name}`, () => {
    let url: string;
    let store: EvidenceStore;
    const verify = async (run: string) => {
      const chain = await readEventChain(store, run);
      return checkChain(sha256Text, run, chain.rows, chain.chainStart);
    };
    const raw = (sql: string) => getTarget().raw(url, sql);
    const started = (run: string, seq = 0, at = FIRST) =>
      agentEvent(run, seq, 'run.started', { tenantId: 'acme', userId: 'u-1' }, at);
    const step = (run: string, seq: number, data: Record<string, unknown> = {}, at = FIRST) =>
      agentEvent(run, seq, 'step.completed', { step: seq, ...data }, at);

    beforeAll(async () => {
      url = getTarget().freshUrl();
      store = await openEvidenceStore(url);
    });
    afterAll(() => store.close());

    it('links every stored event to the one before it, the first to the genesis over tenant and run', async () => {
      const run = newRunId('chain');
      await store.appendEvents([started(run), step(run, 1)]);
      await store.appendEvent(step(run, 2));
      const { rows } = await readEventChain(store, run);
      expect(rows.map((r) => r.seq)).toEqual([0, 1, 2]);
      const genesis = genesisHash(sha256Text, {
        tenant: 'acme',
        workflowId: run,
        firstEventId: `${run}-ev-0`,
        previousHead: null,
      });
      let prev = genesis;
      for (const row of rows) {
        expect(row.prevHash).toBe(prev);
        expect(row.chainHash).toBe(eventHash(sha256Text, row.body, prev));
        expect(row.chainHash).toMatch(/^sha256:[0-9a-f]{64}$/);
        prev = row.chainHash!;
      }
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
    });

    it('relinks later events when an earlier one is stored after them', async () => {
      const run = newRunId('chain-order');
      await store.appendEvents([step(run, 2), step(run, 3)]);
      await store.appendEvents([started(run), step(run, 1)]);
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
    });

    it("relinks from the first replaced event when a retried task attempt's events replace provisional ones", async () => {
      const run = newRunId('chain-retry');
      await store.appendEvents([started(run), step(run, 1)]);
      await store.appendLastFlush([
        step(run, 2, { outcome: 'abandoned' }),
        step(run, 3, { outcome: 'abandoned' }),
      ]);
      const before = await readEventChain(store, run);
      await store.appendEvents([step(run, 2, { outcome: 'recorded' }, RETRY)]);
      const after = await readEventChain(store, run);
      expect(after.rows.map((r) => r.seq)).toEqual([0, 1, 2]);
      expect(after.rows[1]).toEqual(before.rows[1]);
      expect(after.rows[2]!.chainHash).not.toBe(before.rows[2]!.chainHash);
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
      // The same events apart from their clock: the first record and its links stand.
      await store.appendLastFlush([step(run, 3, { outcome: 'late' })]);
      await store.appendLastFlush([step(run, 3, { outcome: 'late' }, RETRY)]);
      expect(await verify(run)).toMatchObject({ ok: true, code: 'chain.ok' });
    });

    it('detects a changed event, a dropped event and a relinked chain, each with its own code', async () => {
      const altered = newRunId('chain-alter');
      await store.appendEvents([started(altered), step(altered, 1, { amount: 10 }), step(altered, 2)]);
      await raw(
        `UPDATE events SET body = REPLACE(body, '"amount":10', '"amount":99') WHERE run_id = '${altered}' AND seq = 1`,
      );
      expect(await verify(altered)).toMatchObject({ ok: false, code: 'chain.event_altered' });

      const dropped = newRunId('chain-drop');
      await store.appendEvents([started(dropped), step(dropped, 1), step(dropped, 2)]);
      await raw(`DELETE FROM events WHERE run_id = '${dropped}' AND seq = 1`);
      expect(await verify(dropped)).toMatchObject({ ok: false, code: 'chain.event_missing' });

      const relinked = newRunId('chain-relink');
      await store.appendEvents([started(relinked), step(relinked, 1), step(relinked, 2)]);
      await raw(
        `UPDATE events SET prev_hash = 'sha256:${'0'.repeat(64)}' WHERE run_id = '${relinked}' AND seq = 2`,
      );
      await raw(`UPDATE events SET chain_hash = NULL WHERE run_id = '${relinked}' AND seq = 0`);
      expect(await verify(relinked)).toMatchObject({ ok: false, code: 'chain.stripped' });
      await raw(`UPDATE events SET chain_hash = prev_hash WHERE run_id = '${relinked}' AND seq = 0`);
      expect(await verify(relinked)).toMatchObject({ ok: false, code: 'chain.event_altered' });

      // Relinked with a correct hash over a wrong predecessor: the link, not the event, is broken.
      const skipped = newRunId('chain-skip');
      await store.appendEvents([started(skipped), step(skipped, 1), step(skipped, 2)]);
      const row2 = (await readEventChain(store, skipped)).rows[2]!;
      const zero = `sha256:${'0'.repeat(64)}`;
      const forged = eventHash(sha256Text, row2.body, zero);
      await raw(
        `UPDATE events SET prev_hash = '${zero}', chain_hash = '${forged}' WHERE run_id = '${skipped}' AND seq = 2`,
      );
      expect(await verify(skipped)).toMatchObject({ ok: false, code: 'chain.link_broken' });
    });

    it('keeps a run recorded before the chain unchained, also for the events it appends later', async () => {
      const run = newRunId('chain-legacy');
      await store.appendEvents([
        started(run, 0, '2020-01-01T00:00:00.000Z'),
        step(run, 1, {}, '2020-01-01T00:00:01.000Z'),
      ]);
      await raw(`UPDATE events SET prev_hash = NULL, chain_hash = NULL WHERE run_id = '${run}'`);
      await store.appendEvents([step(run, 2, {}, '2020-01-01T00:00:02.000Z')]);
      const { rows } = await readEventChain(store, run);
      expect(rows.map((r) => r.chainHash)).toEqual([null, null, null]);
      expect(await verify(run)).toMatchObject({ ok: false, code: 'chain.unchained' });
      // The same links stripped from a run recorded after the chain began is not "unchained".
      const recent = newRunId('chain-stripped');
      await store.appendEvents([started(recent, 0, new Date().toISOString())]);
      await raw(`UPDATE events SET prev_hash = NULL, chain_hash = NULL WHERE run_id = '${recent}'`);
      expect(await verify(recent)).toMatchObject({ ok: false, code: 'chain.stripped' });
    });
  });
}
