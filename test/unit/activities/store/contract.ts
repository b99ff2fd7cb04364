import { afterAll, beforeAll, describe } from 'vitest';
import { openEvidenceStore } from '../../../../src/activities/store/index.js';
import type { EvidenceStore } from '../../../../src/activities/store/index.js';
import { describeEventQueriesContract } from './contract-event-queries.js';
import { describeEventsContract } from './contract-events.js';
import { describeIntentsContract } from './contract-intents.js';
import { describeMemoryContract } from './contract-memory.js';
import { describeMessagesContract } from './contract-messages.js';
import { describePayloadsContract } from './contract-payloads.js';
import { describeResultsContract } from './contract-results.js';
import { describeSchemaContract } from './contract-schema.js';

/** What the contract needs from a backend. */
export interface ContractTarget {
  /** URL of a new, empty store location that outlives a closed store (a file, a schema). */
  freshUrl(): string;
  /** Run raw SQL (no parameters) against the location behind `url`; returns its rows. */
  raw(url: string, sql: string): Promise<Record<string, unknown>[]>;
}

/**
 * What every part of the contract shares. `store` is the one store all parts write to: a stand-in
 * that forwards each property to the store the contract opens in its `beforeAll`, so it may be
 * named while the tests are declared but throws if used before that hook has run. `url()` is that
 * store's location, valid from the same hook on. Every store `open` opens is closed with it in the
 * contract's `afterAll`.
 */
export interface SharedStore {
  getTarget: () => ContractTarget;
  store: EvidenceStore;
  url: () => string;
  open: (at: string) => Promise<EvidenceStore>;
}

/** A stand-in for the store `current()` returns when used; its methods run bound to that store. */
function forwardTo(current: () => EvidenceStore | undefined): EvidenceStore {
  return new Proxy({} as EvidenceStore, {
    get(_, key) {
      const target = current();
      if (!target) throw new Error('the contract store is used before its beforeAll opened it');
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The behaviour every EvidenceStore adapter must show, run once per backend. */
export function describeEvidenceStoreContract(name: string, getTarget: () => ContractTarget): void {
  describe(`EvidenceStore contract: ${name}`, () => {
    let url: string;
    let store: EvidenceStore | undefined;
    const extra: EvidenceStore[] = [];
    const open = async (at: string): Promise<EvidenceStore> => {
      const s = await openEvidenceStore(at);
      extra.push(s);
      return s;
    };

    beforeAll(async () => {
      url = getTarget().freshUrl();
      store = await openEvidenceStore(url);
    });
    afterAll(async () => {
      await Promise.all([store?.close(), ...extra.map((s) => s.close())]);
    });

    const shared: SharedStore = { getTarget, store: forwardTo(() => store), url: () => url, open };
    describeMemoryContract(shared);
    describeIntentsContract(shared);
    describeResultsContract(shared);
    describeMessagesContract(shared);
    describeEventsContract(shared);
    describeEventQueriesContract(shared);
    describePayloadsContract(shared);
    describeSchemaContract(shared);
  });
}
