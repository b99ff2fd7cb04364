import { describe, expect, it } from 'vitest';
import { erasureHeadSigner } from '../../../../src/activities/attestation/erasure-head.js';
import {
  erasureOf,
  openEvidenceStore,
  readEventChain,
  sha256Text,
  type StoredEvent,
} from '../../../../src/activities/store/index.js';
import { checkErasures } from '../../../../src/client/proof/check-erasures.js';
import { erasableRule } from '../../../../src/contract/erasable-rule.js';
import { WITHHELD_BY_POLICY, isCommitment } from '../../../../src/contract/erasable-values.js';
import { erasureHash, type ErasureRecord } from '../../../../src/contract/erasure-record.js';
import { testAttestation } from '../../../support/attestation.js';
import {
  RUN_AT as AT,
  finishedRun as finished,
  runContact,
  storedBodies,
  useContractStore,
} from '../../../support/erasure-preamble.js';
import type { ContractTarget } from './contract.js';
import { agentEvent, newRunId } from './fixtures.js';

const ERASE_AT = new Date(Date.now() - 60_000).toISOString();

/**
 * Erasure records chained and signed, and the erasable fields an app declares (docs/evidence-chain.md,
 * "Erasure", "Which values are erasable"), once per backend, checked with the verifier's `erasures` line.
 */
export function describeErasureChainContract(name: string, getTarget: () => ContractTarget): void {
  describe(`erasure records chained and signed, declared erasable fields: ${name}`, () => {
    const backend = useContractStore(getTarget);
    const { raw } = backend;
    const key = testAttestation('erasure-test-1');
    const sign = erasureHeadSigner(key.signer);
    /** A finished run erased twice (its requester, then its contact), both records signed. */
    const erasedRun = async (prefix: string) => {
      const run = newRunId(prefix);
      await backend.store.appendEvents(finished(run));
      const erasure = erasureOf(backend.store);
      await erasure.erase({ runId: run, paths: ['/userId'], actor: 'dpo', at: ERASE_AT }, sign);
      await erasure.erase({ runId: run, actor: 'dpo', reason: 'rest', at: ERASE_AT }, sign);
      return run;
    };
    /** The `erasures` line over what the store holds now (every stored opening: `withValues`). */
    const check = async (run: string, records?: readonly ErasureRecord[]) => {
      const erasure = erasureOf(backend.store);
      const events = await storedBodies(backend.store, run);
      const input = {
        erasures: records ?? (await erasure.erasures(run)),
        openings: await erasure.openings(run),
        withValues: true,
      };
      return checkErasures(sha256Text, run, events, input, key.registry);
    };

    it("links each record to the run's previous one and signs it: the erasures line passes", async () => {
      const run = await erasedRun('chained');
      const [first, second] = await erasureOf(backend.store).erasures(run);
      expect(first).toMatchObject({ seq: 1, prev: null, paths: ['/userId'], values: 2 });
      expect(second).toMatchObject({ seq: 2, prev: first!.hash, paths: ['/customer/email'], values: 2 });
      expect(first!.hash).toBe(erasureHash(sha256Text, first!));
      expect(typeof second!.head).toBe('string');
      expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
      // Unsigned (no attestation key where it was erased): never passed.
      const unsigned = newRunId('unsigned');
      await backend.store.appendEvents(finished(unsigned));
      await erasureOf(backend.store).erase({ runId: unsigned, actor: 'dpo', at: ERASE_AT });
      expect(await check(unsigned)).toMatchObject({ ok: false, code: 'erasures.unsigned' });
    });

    it('detects a record edited in the database, and one edited and rehashed without the key', async () => {
      const run = await erasedRun('edited');
      await raw(`UPDATE erasures SET body = replace(body, '"rest"', '"other"') WHERE run_id = '${run}'`);
      expect(await check(run)).toMatchObject({ ok: false, code: 'erasures.record_altered' });
      const other = await erasedRun('rehashed');
      const records = await erasureOf(backend.store).erasures(other);
      const forged = { ...records[1]!, actor: 'nobody' };
      const rehashed = [records[0]!, { ...forged, hash: erasureHash(sha256Text, forged) }];
      expect(await check(other, rehashed)).toMatchObject({ ok: false, code: 'erasures.head_mismatch' });
    });

    it('detects a deleted record (first or last) and reordered records, each with its own code', async () => {
      const first = await erasedRun('del-first');
      await raw(`DELETE FROM erasures WHERE run_id = '${first}' AND seq = 1`);
      expect(await check(first)).toMatchObject({ ok: false, code: 'erasures.record_missing' });
      const last = await erasedRun('del-last');
      await raw(`DELETE FROM erasures WHERE run_id = '${last}' AND seq = 2`);
      expect(await check(last)).toMatchObject({ ok: false, code: 'erasures.unrecorded' });
      const swapped = await erasedRun('reorder');
      const records = await erasureOf(backend.store).erasures(swapped);
      expect(await check(swapped, [...records].reverse())).toMatchObject({
        ok: false,
        code: 'erasures.reordered',
      });
      const renumbered = records.map((r, i) => ({ ...r, seq: records.length - i }));
      expect(await check(swapped, renumbered.reverse())).toMatchObject({
        ok: false,
        code: 'erasures.record_altered',
      });
    });

    it('erases a run with more paths than one record holds in several chained records, all signed: the line passes', async () => {
      // 3,600 distinct erasable paths (`/customer/list<k>/<i>/email`, in three contact events): about
      // 90 KB of paths, over one record's 64 KiB. Before: `store.payload_too_large`, nothing erased.
      const run = newRunId('many-paths');
      const contacts = [0, 1, 2].map((k) =>
        runContact(run, k + 1, {
          [`list${k}`]: Array.from({ length: 1_200 }, (_, i) => ({ email: `c${k}-${i}@example.com` })),
        }),
      );
      const [started] = finished(run);
      const ended = agentEvent(
        run,
        4,
        'state.transitioned',
        { fromStatus: 'running', toStatus: 'succeeded' },
        AT,
      );
      await backend.store.appendEvents([started!, ...contacts, ended]);
      const erasure = erasureOf(backend.store);
      const held = (await erasure.openings(run)).length;
      const records = await erasure.erase(
        { runId: run, actor: 'dpo', reason: 'all of it', at: ERASE_AT },
        sign,
      );
      expect(records.length).toBeGreaterThan(1);
      expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
      records.forEach((r, i) => expect(r.prev).toBe(i === 0 ? null : records[i - 1]!.hash));
      expect(records.every((r) => typeof r.head === 'string')).toBe(true);
      // Every path once, in order across the records; every value counted once.
      const paths = records.flatMap((r) => r.paths);
      expect(new Set(paths).size).toBe(paths.length);
      expect(paths).toEqual([...paths].sort());
      expect(paths).toHaveLength(3_601);
      expect(held).toBeGreaterThanOrEqual(3_601);
      expect(records.reduce((n, r) => n + r.values, 0)).toBe(held);
      expect(await erasure.openings(run)).toEqual([]);
      expect(await erasure.erasures(run)).toEqual(records);
      expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
    });

    it('marks a record from before the chain unchained, and never passes the run', async () => {
      const run = newRunId('old');
      await backend.store.appendEvents(finished(run));
      const old = {
        runId: run,
        seq: 1,
        erasedAt: AT,
        actor: 'dpo',
        reason: null,
        paths: [],
        values: 0,
        events: 0,
      };
      await raw(
        `INSERT INTO erasures (run_id, seq, erased_at, body) VALUES ('${run}', 1, '${AT}', '${JSON.stringify(old)}')`,
      );
      expect(await check(run)).toMatchObject({ ok: false, code: 'erasures.unchained' });
      const [later] = await erasureOf(backend.store).erase({ runId: run, actor: 'dpo', at: ERASE_AT }, sign);
      expect(later).toMatchObject({ seq: 2, prev: null });
      expect(await check(run)).toMatchObject({ ok: false, code: 'erasures.unchained' });
    });

    it('commits the fields an app declares (keys and paths) and erases them; the default store does not', async () => {
      const rule = erasableRule({ keys: ['zip'], paths: { 'tool.requested': ['/arguments/card/*'] } });
      const declared = await openEvidenceStore(backend.url, { erasable: rule });
      try {
        const run = newRunId('declared');
        const requested = (r: string) =>
          agentEvent(
            r,
            1,
            'tool.requested',
            { arguments: { card: { last4: '4242', brand: 'visa' }, shipTo: { zip: '94107', city: 'SF' } } },
            AT,
          );
        const [started, , ended] = finished(run);
        await declared.appendEvents([started!, requested(run), ended!]);
        const body = JSON.parse((await readEventChain(declared, run)).rows[1]!.body) as StoredEvent;
        const args = body.data.arguments as {
          card: Record<string, unknown>;
          shipTo: Record<string, unknown>;
        };
        expect(isCommitment(args.shipTo.zip)).toBe(true);
        expect(isCommitment(args.card.last4)).toBe(true);
        expect(isCommitment(args.card.brand)).toBe(true);
        expect(args.shipTo.city).toBe('SF');
        expect((await declared.listEvents(run))[1]!.data).toEqual(requested(run).data);

        const [record] = await erasureOf(declared).erase(
          { runId: run, paths: ['/arguments/shipTo/zip'], actor: 'dpo', at: ERASE_AT },
          sign,
        );
        expect(record).toMatchObject({ paths: ['/arguments/shipTo/zip'], values: 2 });
        const read = (await declared.listEvents(run))[1]!.data.arguments as typeof args;
        expect(read.shipTo).toEqual({ zip: WITHHELD_BY_POLICY, city: 'SF' });
        expect(read.card).toEqual({ last4: '4242', brand: 'visa' });

        const plain = newRunId('undeclared');
        await backend.store.appendEvents([requested(plain)]);
        const kept = JSON.parse((await readEventChain(backend.store, plain)).rows[0]!.body) as StoredEvent;
        expect((kept.data.arguments as typeof args).shipTo.zip).toBe('94107');
      } finally {
        await declared.close();
      }
    });
  });
}
