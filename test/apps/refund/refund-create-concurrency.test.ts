import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RefundStore } from '../../../apps/refund/business/refund-store.js';
import { SEED_ORDERS } from '../../../apps/refund/business/seed-data.js';
import { seededStore, tempDir } from './refund-test-support.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./fixtures/create-refund-child.ts', import.meta.url));
const KEYS = 40;

describe('refund.create across processes', () => {
  let cleanup: () => void;
  let store: RefundStore;

  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    store = seededStore(dir);
  });
  afterEach(() => {
    store.close();
    cleanup();
  });

  it('two worker processes calling with the same keys at the same time create one refund per key', async () => {
    // Both children start together, well after their (slower) startup, and race on every key.
    const startAt = String(Date.now() + 4_000);
    const child = () =>
      run(
        process.execPath,
        ['--import', 'tsx', CHILD, store.path, startAt, String(KEYS), SEED_ORDERS.paidUnshippedOver72h],
        {
          timeout: 60_000,
        },
      );
    const [a, b] = await Promise.all([child(), child()]);
    const fromA = JSON.parse(a.stdout) as Record<string, string>;
    const fromB = JSON.parse(b.stdout) as Record<string, string>;

    expect(Object.keys(fromA)).toHaveLength(KEYS);
    expect(fromB).toEqual(fromA);
    const db = new Database(store.path, { readonly: true });
    try {
      const rows = db
        .prepare<[], { key: string; id: string }>(
          'SELECT idempotency_key AS key, id FROM refunds ORDER BY rowid',
        )
        .all();
      expect(rows).toHaveLength(KEYS);
      expect(Object.fromEntries(rows.map((r) => [r.key, r.id]))).toEqual(fromA);
    } finally {
      db.close();
    }
  }, 90_000);
});
