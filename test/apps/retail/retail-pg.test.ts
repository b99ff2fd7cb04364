import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETAIL_TABLES } from '../../../apps/retail/db/pg/retail-pg-schema.js';
import { RetailPgStore, parseRetailPgUrl } from '../../../apps/retail/db/pg/retail-pg-store.js';
import { retailDbDigest } from '../../../apps/retail/db/retail-export.js';
import { applyGoldActions, applyGoldActionsWith } from '../../../apps/retail/gold/gold-actions.js';
import { readRetailTasksFile } from '../../../apps/retail/gold/retail-tasks.js';
import { openRetailBackend } from '../../../apps/retail/tools/retail-backend.js';
import { createRetailPgExecutors } from '../../../apps/retail/tools/retail-pg-executors.js';
import { createRetailExecutors } from '../../../apps/retail/tools/retail-tools.js';
import { RETAIL_TOOLS as T } from '../../../apps/retail/workflow/retail-tool-names.js';
import type { ToolExecutor } from '../../../src/index.js';
import { startTestPostgres } from '../../support/postgres.js';
import type { TestPostgres } from '../../support/postgres.js';
import { CONTEXT, DB_JSON_PATH, TASKS_TRAIN_PATH, makeCall, retailTemplate } from './retail-test-support.js';

let server: TestPostgres | undefined;
let store: RetailPgStore | undefined;

beforeAll(async () => {
  server = await startTestPostgres();
  store = await RetailPgStore.open(server.freshUrl());
}, 120_000);
afterAll(async () => {
  await store?.close();
  await server?.stop();
}, 60_000);

function pgStore(): RetailPgStore {
  if (store === undefined) throw new Error('PostgreSQL did not start');
  return store;
}

/** Replace the PostgreSQL content with a fresh copy of db.json. */
async function reset(): Promise<RetailPgStore> {
  const local = retailTemplate().fresh();
  try {
    await pgStore().load(local);
  } finally {
    local.close();
  }
  return pgStore();
}

function executor(executors: Record<string, ToolExecutor>, tool: string): ToolExecutor {
  const found = executors[tool];
  if (found === undefined) throw new Error(`no executor ${tool}`);
  return found;
}

/** What a call settles to: its execution, or its error code and message. */
async function settle(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (err: unknown) => ({ ok: false, code: (err as { code?: string }).code, message: (err as Error).message }),
  );
}

describe('retail over PostgreSQL', () => {
  it('loads db.json with the same export digest as SQLite', async () => {
    const s = await reset();
    const local = retailTemplate().fresh();
    try {
      expect(await s.digest()).toBe(retailDbDigest(local));
    } finally {
      local.close();
    }
  });

  it('every train task: gold actions give the same outcomes and database as over SQLite; repeated under the same keys, the same answers and no change', async () => {
    const tasks = readRetailTasksFile(TASKS_TRAIN_PATH);
    expect(tasks.length).toBeGreaterThanOrEqual(74);
    for (const task of tasks) {
      const s = await reset();
      const sqlite = retailTemplate().fresh();
      try {
        const expected = await applyGoldActions(sqlite, task);
        const got = await applyGoldActionsWith(createRetailPgExecutors(s), task);
        expect(got, `task ${task.id}`).toEqual(expected);
        const digest = await s.digest();
        expect(digest, `task ${task.id}`).toBe(retailDbDigest(sqlite));
        // Reads see the changed data; writes answer their first answer: as over SQLite.
        const again = await applyGoldActionsWith(createRetailPgExecutors(s), task);
        expect(again, `task ${task.id} repeated`).toEqual(await applyGoldActions(sqlite, task));
        expect(await s.digest(), `task ${task.id} repeated`).toBe(digest);
      } finally {
        sqlite.close();
      }
    }
  }, 600_000);

  it('reconcile: not_applied before, succeeded after, not_applied for a business error, unknown for other arguments', async () => {
    const s = await reset();
    const cancel = executor(createRetailPgExecutors(s), T.cancelPendingOrder);
    const call = makeCall(
      T.cancelPendingOrder,
      { order_id: '#W6779827', reason: 'no longer needed' },
      1,
      'rec',
    );
    expect(await cancel.reconcile?.(CONTEXT, call)).toEqual({ outcome: 'not_applied' });
    const execution = await cancel.execute(CONTEXT, call);
    expect(await cancel.reconcile?.(CONTEXT, call)).toEqual({ outcome: 'succeeded', execution });
    const other = { ...call, args: { order_id: '#W6779827', reason: 'ordered by mistake' } };
    expect(await cancel.reconcile?.(CONTEXT, other)).toEqual({ outcome: 'unknown' });
    const failing = makeCall(
      T.cancelPendingOrder,
      { order_id: '#W6779827', reason: 'no longer needed' },
      2,
      'rec',
    );
    await expect(cancel.execute(CONTEXT, failing)).rejects.toMatchObject({ code: 'retail.tool_error' });
    expect(await cancel.reconcile?.(CONTEXT, failing)).toEqual({ outcome: 'not_applied' });
  });

  it('eight concurrent cancels of one order under different keys: one cancels and refunds once, the others fail', async () => {
    const s = await reset();
    const pg = createRetailPgExecutors(s);
    const args = { order_id: '#W6779827', reason: 'no longer needed' };
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((seq) =>
        settle(
          executor(pg, T.cancelPendingOrder).execute(
            CONTEXT,
            makeCall(T.cancelPendingOrder, args, seq, 'race'),
          ),
        ),
      ),
    );
    expect(results.filter((r) => (r as { ok: boolean }).ok)).toHaveLength(1);
    for (const failed of results.filter((r) => !(r as { ok: boolean }).ok)) {
      expect(failed).toMatchObject({
        code: 'retail.tool_error',
        message: 'Non-pending order cannot be cancelled',
      });
    }
    const sqlite = retailTemplate().fresh();
    try {
      await createRetailExecutors(sqlite)[T.cancelPendingOrder]?.execute(
        CONTEXT,
        makeCall(T.cancelPendingOrder, args),
      );
      expect(await s.digest()).toBe(retailDbDigest(sqlite));
    } finally {
      sqlite.close();
    }
  });

  it('two concurrent writes on one order (address, payment) both land: no lost update', async () => {
    const s = await reset();
    const pg = createRetailPgExecutors(s);
    const address = {
      order_id: '#W6779827',
      address1: '1 Main St',
      address2: 'Apt 2',
      city: 'Springfield',
      state: 'IL',
      country: 'USA',
      zip: '62701',
    };
    const payment = { order_id: '#W6779827', payment_method_id: 'credit_card_9789590' };
    const calls = [
      makeCall(T.modifyPendingOrderAddress, address, 1, 'both'),
      makeCall(T.modifyPendingOrderPayment, payment, 2, 'both'),
    ];
    const results = await Promise.all(calls.map((c) => settle(executor(pg, c.tool).execute(CONTEXT, c))));
    expect(results.every((r) => (r as { ok: boolean }).ok)).toBe(true);
    const sqlite = retailTemplate().fresh();
    try {
      const local = createRetailExecutors(sqlite);
      for (const c of calls) await executor(local, c.tool).execute(CONTEXT, c);
      expect(await s.digest()).toBe(retailDbDigest(sqlite));
    } finally {
      sqlite.close();
    }
  });

  it('one key used concurrently applies once and answers the same', async () => {
    const s = await reset();
    const pg = createRetailPgExecutors(s);
    const call = makeCall(
      T.cancelPendingOrder,
      { order_id: '#W6779827', reason: 'no longer needed' },
      1,
      'dup',
    );
    const [a, b] = await Promise.all(
      [1, 2].map(() => executor(pg, T.cancelPendingOrder).execute(CONTEXT, call)),
    );
    expect(a).toEqual(b);
    const sqlite = retailTemplate().fresh();
    try {
      await executor(createRetailExecutors(sqlite), T.cancelPendingOrder).execute(CONTEXT, call);
      expect(await s.digest()).toBe(retailDbDigest(sqlite));
    } finally {
      sqlite.close();
    }
  });

  it('openRetailBackend selects PostgreSQL by URL and loads db.json into an empty schema', async () => {
    const backend = await openRetailBackend(server?.freshUrl() ?? '', { dbJsonPath: DB_JSON_PATH });
    const sqlite = await openRetailBackend('sqlite::memory:', { dbJsonPath: DB_JSON_PATH });
    try {
      expect(backend.kind).toBe('postgres');
      expect(await backend.digest()).toBe(await sqlite.digest());
      const out = await executor({ ...backend.executors }, T.getUserDetails).execute(
        CONTEXT,
        makeCall(T.getUserDetails, { user_id: 'ethan_lopez_6291' }),
      );
      const ref = await executor({ ...sqlite.executors }, T.getUserDetails).execute(
        CONTEXT,
        makeCall(T.getUserDetails, { user_id: 'ethan_lopez_6291' }),
      );
      expect(out).toEqual(ref);
    } finally {
      await backend.close();
      await sqlite.close();
    }
  });
});

describe('retail PostgreSQL tables', () => {
  it('name the same columns and keys as the SQLite schema', () => {
    const local = retailTemplate().fresh();
    try {
      for (const spec of RETAIL_TABLES) {
        const info = local.sqlite.prepare(`PRAGMA table_info(${spec.name})`).all() as {
          name: string;
          pk: number;
        }[];
        expect(spec.columns, spec.name).toEqual(info.map((c) => c.name));
        const key = info
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name);
        expect(spec.key, spec.name).toEqual(key);
      }
      const tables = local.sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as {
        name: string;
      }[];
      expect(RETAIL_TABLES.map((t) => t.name).sort()).toEqual(tables.map((t) => t.name).sort());
    } finally {
      local.close();
    }
  });

  it('reject a URL that is not postgres:// or names a bad schema', async () => {
    expect(() => parseRetailPgUrl('mysql://x')).toThrow(
      expect.objectContaining({ code: 'retail.db_url_invalid' }),
    );
    expect(() => parseRetailPgUrl('postgres://h/db?schema=Bad-Name')).toThrow(
      expect.objectContaining({ code: 'retail.db_url_invalid' }),
    );
    expect(parseRetailPgUrl('postgres://h/db?schema=shop')).toEqual({
      connectionString: 'postgres://h/db',
      schema: 'shop',
    });
    await expect(openRetailBackend('mysql://x')).rejects.toMatchObject({ code: 'retail.db_url_invalid' });
  });
});
