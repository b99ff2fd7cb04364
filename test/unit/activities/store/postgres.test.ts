import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEvidenceStore, parseStoreUrl } from '../../../../src/activities/store/index.js';
import { startTestPostgres } from '../../../support/postgres.js';
import type { TestPostgres } from '../../../support/postgres.js';
import { describeEventChainContract } from './chain-contract.js';
import { describeEvidenceStoreContract } from './contract.js';
import { describeErasureContract } from './erasure-contract.js';
import { describeErasureChainContract } from './erasure-chain-contract.js';
import { describeErasureConcurrencyContract, type HeldLock } from './erasure-concurrency-contract.js';
import { expectCode } from './fixtures.js';

let server: TestPostgres | undefined;

beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
}, 60_000);

function live(): TestPostgres {
  if (server === undefined) throw new Error('PostgreSQL did not start');
  return server;
}

/** A client connected to the location behind `url`, its schema first on the search path. */
async function connect(url: string): Promise<pg.Client> {
  const location = parseStoreUrl(url);
  if (location.backend !== 'postgres') throw new Error('not a postgres url');
  const client = new pg.Client({ connectionString: location.connectionString });
  await client.connect();
  try {
    if (location.schema !== undefined) await client.query(`SET search_path TO "${location.schema}"`);
  } catch (err) {
    await client.end();
    throw err;
  }
  return client;
}

async function raw(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = await connect(url);
  try {
    const result = await client.query(sql);
    return result.rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** Hold the run's `runs` row `FOR UPDATE` in an open transaction of a connection of its own. */
async function lockRunRow(url: string, runId: string): Promise<HeldLock> {
  const client = await connect(url);
  try {
    await client.query('BEGIN');
    const locked = await client.query('SELECT run_id FROM runs WHERE run_id = $1 FOR UPDATE', [runId]);
    if (locked.rowCount !== 1) throw new Error(`run ${runId} has no record to lock`);
  } catch (err) {
    await client.end();
    throw err;
  }
  let released = false;
  return {
    waiters: async () => {
      const found = await raw(
        url,
        "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
      );
      return Number(found[0]?.n ?? 0);
    },
    terminateWaiters: async () => {
      const ended = await raw(
        url,
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
      );
      return ended.filter((r) => r.ended === true).length;
    },
    release: async () => {
      if (released) return;
      released = true;
      try {
        await client.query('ROLLBACK');
      } finally {
        await client.end();
      }
    },
  };
}

describeEvidenceStoreContract('postgres', () => ({ freshUrl: () => live().freshUrl(), raw }));
describeEventChainContract('postgres', () => ({ freshUrl: () => live().freshUrl(), raw }));
describeErasureContract('postgres', () => ({ freshUrl: () => live().freshUrl(), raw }));
describeErasureChainContract('postgres', () => ({ freshUrl: () => live().freshUrl(), raw }));
describeErasureConcurrencyContract('postgres', () => ({
  freshUrl: () => live().freshUrl(),
  raw,
  lockRunRow,
}));

describe('PostgreSQL adapter', () => {
  it('puts the tables in the schema named by the URL', async () => {
    const url = live().freshUrl();
    const schema = new URL(url).searchParams.get('schema');
    const store = await openEvidenceStore(url);
    await store.close();
    const tables = await raw(
      live().url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'artifacts',
      'blobs',
      'erasable_values',
      'erasures',
      'events',
      'failure_samples',
      'invocation_intents',
      'invocation_results',
      'memory_entries',
      'message_groups',
      'model_deltas',
      'retrieval_documents',
      'runs',
      'schema_migrations',
    ]);
  });

  it('reports an unreachable server as store.unavailable', async () => {
    await expectCode(openEvidenceStore('postgres://postgres@127.0.0.1:1/none'), 'store.unavailable');
  });
});
