/**
 * What the erasure contracts (test/unit/activities/store/erasure-contract.ts and
 * erasure-chain-contract.ts) share, once per backend: the store they open on a fresh location, the
 * rows of a finished run with erasable values, and the stored bodies of a run's event chain.
 */
import { afterAll, beforeAll } from 'vitest';
import {
  openEvidenceStore,
  readEventChain,
  type EvidenceStore,
  type StoredEvent,
} from '../../src/activities/store/index.js';
import type { ContractTarget } from '../unit/activities/store/contract.js';
import { agentEvent } from '../unit/activities/store/fixtures.js';

/** When the rows of {@link finishedRun} (and the contracts' own rows) happened. */
export const RUN_AT = '2026-01-01T00:00:00.000Z';

/** The store of {@link useContractStore}; its fields read as open once the block's tests run. */
export interface ContractStore {
  /** The store's location, fresh for this describe block. */
  readonly url: string;
  readonly store: EvidenceStore;
  /** Runs raw SQL against the store's location (the backend's own `raw`); returns its rows. */
  readonly raw: (sql: string) => Promise<Record<string, unknown>[]>;
}

/**
 * For a describe block of a store contract: before its tests, open an evidence store on a fresh
 * location of the backend `getTarget()` names; after them, close it. Call it in the block's body.
 * Reading `url` or `store` before the block's `beforeAll` has run (or after it failed) throws.
 */
export function useContractStore(getTarget: () => ContractTarget): ContractStore {
  let url: string | undefined;
  let store: EvidenceStore | undefined;
  beforeAll(async () => {
    url = getTarget().freshUrl();
    store = await openEvidenceStore(url);
  });
  afterAll(() => store?.close());
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useContractStore: the store opens in beforeAll');
    return value;
  };
  const handle: ContractStore = {
    get url() {
      return opened(url);
    },
    get store() {
      return opened(store);
    },
    raw: (sql) => getTarget().raw(handle.url, sql),
  };
  return handle;
}

/** A run's first row: `run.started` for tenant `acme` and `userId` (an erasable value), seq 0. */
export function runStarted(run: string, userId: string, at = RUN_AT): StoredEvent {
  return agentEvent(run, 0, 'run.started', { tenantId: 'acme', userId }, at);
}

/** A `profile.contact` row at `seq` naming `customer` (its `email` is an erasable value). */
export function runContact(
  run: string,
  seq: number,
  customer: Record<string, unknown>,
  at = RUN_AT,
): StoredEvent {
  return agentEvent(run, seq, 'profile.contact', { customer }, at);
}

/** The row that finishes a run at `seq`: `state.transitioned` from running to succeeded. */
function runEnded(run: string, seq: number, at = RUN_AT): StoredEvent {
  return agentEvent(run, seq, 'state.transitioned', { fromStatus: 'running', toStatus: 'succeeded' }, at);
}

/**
 * A finished run's three rows (erasable only once it is finished): started for `userId`, the
 * contact `customer` at seq 1, ended at seq 2. By default the values name the run: `u-<run>` and
 * `<run>@example.com`.
 */
export function finishedRun(
  run: string,
  userId = `u-${run}`,
  customer: Record<string, unknown> = { email: `${run}@example.com` },
): StoredEvent[] {
  return [runStarted(run, userId), runContact(run, 1, customer), runEnded(run, 2)];
}

/** The stored bodies of `run`'s event chain, in order (commitments in place of erasable values). */
export async function storedBodies(store: EvidenceStore, run: string): Promise<StoredEvent[]> {
  return (await readEventChain(store, run)).rows.map((r) => JSON.parse(r.body) as StoredEvent);
}
