import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll } from 'vitest';
import { openEvidenceStore, type EvidenceStore } from '../../src/activities/store/index.js';

/** The two evidence stores of {@link useHeaderStores}; each reads as open once the block's tests run. */
export interface HeaderStores {
  /** The store a worker writes its run headers and events to. */
  readonly store: EvidenceStore;
  /** A second store that never saw those headers (another deployment, a store that lost them). */
  readonly other: EvidenceStore;
}

/**
 * For a describe block of the batches that name their run header by reference: before its tests,
 * open two SQLite evidence stores (`evidence.db`, `other.db`) in a new temporary folder named
 * `prefix…`; after them, close both and remove the folder. Call it in the block's body. Reading a
 * store before the block's `beforeAll` has run (or after it failed) throws.
 */
export function useHeaderStores(prefix: string): HeaderStores {
  let dir: string | undefined;
  let store: EvidenceStore | undefined;
  let other: EvidenceStore | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
    other = await openEvidenceStore(`sqlite:${join(dir, 'other.db')}`);
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const opened = (s: EvidenceStore | undefined): EvidenceStore => {
    if (s === undefined) throw new Error(`useHeaderStores(${prefix}): the stores open in beforeAll`);
    return s;
  };
  return {
    get store() {
      return opened(store);
    },
    get other() {
      return opened(other);
    },
  };
}

/**
 * A `toSatisfy` predicate: the error is an `ApplicationFailure` of `type`, marked non-retryable (how
 * an activity refuses a batch or an input it cannot restore).
 */
export const refusedAs = (type: string) => (err: unknown) =>
  err instanceof ApplicationFailure && err.type === type && err.nonRetryable === true;
