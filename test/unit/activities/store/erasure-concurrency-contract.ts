import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureHeadSigner } from '../../../../src/activities/attestation/erasure-head.js';
import {
  erasureOf,
  openEvidenceStore,
  readEventChain,
  sha256Text,
  type EvidenceStore,
  type StoredEvent,
} from '../../../../src/activities/store/index.js';
import { checkErasures } from '../../../../src/client/proof/check-erasures.js';
import { isHarnessError } from '../../../../src/contract/errors.js';
import type { ErasureRecord } from '../../../../src/contract/erasure-record.js';
import { testAttestation } from '../../../support/attestation.js';
import type { ContractTarget } from './contract.js';
import { agentEvent, newRunId } from './fixtures.js';

const AT = '2026-01-01T00:00:00.000Z';
const ERASE_AT = new Date(Date.now() - 60_000).toISOString();

/** A row lock a backend's test holds on one connection of its own until released. */
export interface HeldLock {
  /** How many transactions of the test's database wait for a lock now. */
  waiters(): Promise<number>;
  /** Roll the holding transaction back and close its connection. */
  release(): Promise<void>;
  /**
   * End the server connections of the transactions waiting for a lock now (the server's side of a
   * connection lost mid-transaction); how many were ended.
   */
  terminateWaiters(): Promise<number>;
}

/** A backend whose transactions can overlap offers a way to hold them at one point. */
export interface ConcurrencyTarget extends ContractTarget {
  /**
   * Lock the run's record (`runs` row, `FOR UPDATE`) from a connection of its own. An erasure waits
   * there when it projects the run again, after it deleted its values and inserted its record, so two
   * erasures started while it is held both read the run's chain before either commits. Absent for
   * SQLite: a write transaction holds the database's write lock from its start, erasures never overlap.
   */
  lockRunRow?(url: string, runId: string): Promise<HeldLock>;
}

type Outcome = { readonly records: ErasureRecord[] } | { readonly code: string };

/**
 * Two erasures of one run at the same time (docs/evidence-chain.md, "Erasure"), from two store handles
 * (two service replicas) on one location, once per backend: exactly one chains its record; where the
 * two overlap (PostgreSQL, held at the run's record until both have read the chain) the other rolls
 * back with `erasure.conflict`, nothing of it written, and sent again it runs as a second erasure does;
 * where they cannot (SQLite) the second runs after the first. The chain verifies either way.
 */
export function describeErasureConcurrencyContract(name: string, getTarget: () => ConcurrencyTarget): void {
  describe(`concurrent erasures of one run: ${name}`, () => {
    let url: string;
    let a: EvidenceStore;
    let b: EvidenceStore;
    const key = testAttestation('erasure-race-1');
    const sign = erasureHeadSigner(key.signer);
    const finished = (run: string) => [
      agentEvent(run, 0, 'run.started', { tenantId: 'acme', userId: `u-${run}` }, AT),
      agentEvent(run, 1, 'profile.contact', { customer: { email: `${run}@example.com` } }, AT),
      agentEvent(run, 2, 'state.transitioned', { fromStatus: 'running', toStatus: 'succeeded' }, AT),
    ];
    const request = (runId: string, paths?: string[]) => ({
      runId,
      ...(paths ? { paths } : {}),
      actor: 'dpo',
      reason: 'GDPR Art. 17',
      at: ERASE_AT,
    });
    const outcome = (p: Promise<ErasureRecord[]>): Promise<Outcome> =>
      p.then(
        (records) => ({ records }),
        (err: unknown) => {
          if (isHarnessError(err)) return { code: err.code };
          throw err;
        },
      );
    /** The `erasures` line over what the store holds now (every stored opening: `withValues`). */
    const check = async (run: string) => {
      const erasure = erasureOf(a);
      const events = (await readEventChain(a, run)).rows.map((r) => JSON.parse(r.body) as StoredEvent);
      const input = {
        erasures: await erasure.erasures(run),
        openings: await erasure.openings(run),
        withValues: true,
      };
      return checkErasures(sha256Text, run, events, input, key.registry);
    };
    const until = async (what: string, ok: () => Promise<boolean>) => {
      for (let i = 0; i < 500; i++) {
        if (await ok()) return;
        await new Promise((res) => setTimeout(res, 20));
      }
      throw new Error(`timed out waiting until ${what}`);
    };
    /**
     * Erase `run` twice at once: `first` through handle a, then `second` through handle b. With a lock
     * on the run's record, the first waits there with its record inserted, uncommitted, the second
     * starts and waits too (on a value the first deleted, or on the record number it took), then the
     * lock is released.
     */
    const race = async (run: string, first?: string[], second?: string[]): Promise<[Outcome, Outcome]> => {
      const target = getTarget();
      const lock = target.lockRunRow ? await target.lockRunRow(url, run) : undefined;
      try {
        const one = outcome(erasureOf(a).erase(request(run, first), sign));
        if (lock) await until('the first erasure waits', async () => (await lock.waiters()) >= 1);
        const two = outcome(erasureOf(b).erase(request(run, second), sign));
        if (lock) {
          await until('both erasures wait', async () => (await lock.waiters()) >= 2);
          await lock.release();
        }
        return [await one, await two];
      } finally {
        await lock?.release();
      }
    };

    beforeAll(async () => {
      url = getTarget().freshUrl();
      a = await openEvidenceStore(url);
      b = await openEvidenceStore(url);
    });
    afterAll(async () => {
      await a.close();
      await b.close();
    });

    it('two erasures of other values of a run: one chains record #1, the other conflicts or chains #2', async () => {
      const run = newRunId('race-paths');
      await a.appendEvents(finished(run));
      const [one, two] = await race(run, ['/userId'], ['/customer/email']);
      expect(one).toMatchObject({ records: [{ seq: 1, prev: null, paths: ['/userId'], values: 2 }] });
      const [first] = (one as { records: ErasureRecord[] }).records;
      if (getTarget().lockRunRow) {
        expect(two).toEqual({ code: 'erasure.conflict' });
        // Nothing of the refused erasure was written: its values are still stored, one record in all.
        expect(await erasureOf(a).erasures(run)).toEqual([first]);
        const left = (await erasureOf(a).openings(run)).map((o) => JSON.parse(o.value) as unknown);
        expect(left).toEqual([`${run}@example.com`, `${run}@example.com`]);
        expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
        // Sent again, it runs as a second erasure does: chained after the first.
        expect(await outcome(erasureOf(b).erase(request(run, ['/customer/email']), sign))).toMatchObject({
          records: [{ seq: 2, prev: first!.hash, paths: ['/customer/email'], values: 2 }],
        });
      } else {
        expect(two).toMatchObject({
          records: [{ seq: 2, prev: first!.hash, paths: ['/customer/email'], values: 2 }],
        });
      }
      expect(await erasureOf(a).openings(run)).toEqual([]);
      expect((await erasureOf(b).erasures(run)).map((r) => r.seq)).toEqual([1, 2]);
      expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
      expect((await a.getRun(run))?.status).toBe('succeeded');
    });

    it('an erasure that fails after its deletes (its signer throws) writes nothing: one transaction', async () => {
      const run = newRunId('fail-after-delete');
      await a.appendEvents(finished(run));
      const before = await erasureOf(a).openings(run);
      expect(before).toHaveLength(4);
      let signed = 0;
      const broken = () => {
        signed++;
        throw new Error('the attestation key cannot sign');
      };
      await expect(erasureOf(a).erase(request(run), broken)).rejects.toThrow(/cannot sign/);
      // It got past its deletes (the head is signed over the record, after them) and rolled them back.
      expect(signed).toBe(1);
      expect(await erasureOf(b).openings(run)).toEqual(before);
      expect(await erasureOf(b).erasures(run)).toEqual([]);
      expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
      // Sent again with a working key, it is the run's first erasure.
      expect(await outcome(erasureOf(b).erase(request(run), sign))).toMatchObject({
        records: [{ seq: 1, prev: null, values: 4 }],
      });
      expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
    });

    it('an erasure whose connection is lost before its commit writes nothing (PostgreSQL)', async () => {
      const target = getTarget();
      if (!target.lockRunRow) return; // SQLite: one process's transaction; a crash is covered by its journal
      const run = newRunId('lost-connection');
      await a.appendEvents(finished(run));
      const before = await erasureOf(a).openings(run);
      const lock = await target.lockRunRow(url, run);
      try {
        const erasing = outcome(erasureOf(a).erase(request(run), sign));
        // Held at the run's record: its values deleted and its record inserted, not committed.
        await until('the erasure waits', async () => (await lock.waiters()) >= 1);
        expect(await lock.terminateWaiters()).toBe(1);
        // The server's side ended it: a retryable store error, never an uncaught one that ends the process.
        expect(await erasing).toEqual({ code: 'store.unavailable' });
      } finally {
        await lock.release();
      }
      expect(await erasureOf(b).openings(run)).toEqual(before);
      expect(await erasureOf(b).erasures(run)).toEqual([]);
      expect(await outcome(erasureOf(a).erase(request(run), sign))).toMatchObject({
        records: [{ seq: 1, prev: null, values: 4 }],
      });
      expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
    });

    it('two erasures of the same values: one erases them, the other conflicts or finds nothing left', async () => {
      const run = newRunId('race-same');
      await a.appendEvents(finished(run));
      const [one, two] = await race(run, undefined, undefined);
      expect(one).toMatchObject({ records: [{ seq: 1, prev: null, values: 4 }] });
      if (getTarget().lockRunRow) {
        // The second read values the first deleted: counting them again would break the chain.
        expect(two).toEqual({ code: 'erasure.conflict' });
        expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
        // Sent again: nothing is left to erase, as for a second erasure today.
        expect(await outcome(erasureOf(b).erase(request(run), sign))).toEqual({ records: [] });
      } else {
        expect(two).toEqual({ records: [] });
      }
      expect(await erasureOf(a).erasures(run)).toHaveLength(1);
      expect(await erasureOf(a).openings(run)).toEqual([]);
      expect(await check(run)).toMatchObject({ ok: true, code: 'erasures.ok' });
    });
  });
}
