import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openEvidenceStore, parseStoreUrl } from '../../../../src/activities/store/index.js';
import { describeEventChainContract } from './chain-contract.js';
import { describeEvidenceStoreContract } from './contract.js';
import { describeErasureContract } from './erasure-contract.js';
import { describeErasureChainContract } from './erasure-chain-contract.js';
import { describeErasureConcurrencyContract } from './erasure-concurrency-contract.js';
import { event, expectCode } from './fixtures.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'harness-sqlite-'));
let files = 0;
const freshPath = (): string => join(dir, `evidence-${++files}.db`);

async function raw(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const location = parseStoreUrl(url);
  if (location.backend !== 'sqlite') throw new Error('not a sqlite url');
  const db = new Database(location.path);
  try {
    const statement = db.prepare(sql);
    if (statement.reader) return Promise.resolve(statement.all() as Record<string, unknown>[]);
    statement.run();
    return Promise.resolve([]);
  } finally {
    db.close();
  }
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEvidenceStoreContract('sqlite', () => ({ freshUrl: () => `sqlite:${freshPath()}`, raw }));
describeEventChainContract('sqlite', () => ({ freshUrl: () => `sqlite:${freshPath()}`, raw }));
describeErasureContract('sqlite', () => ({ freshUrl: () => `sqlite:${freshPath()}`, raw }));
describeErasureChainContract('sqlite', () => ({ freshUrl: () => `sqlite:${freshPath()}`, raw }));
describeErasureConcurrencyContract('sqlite', () => ({ freshUrl: () => `sqlite:${freshPath()}`, raw }));

describe('SQLite adapter', () => {
  it('accepts sqlite:, sqlite://, plain paths and :memory:', async () => {
    expect(parseStoreUrl('sqlite::memory:')).toEqual({ backend: 'sqlite', path: ':memory:' });
    expect(parseStoreUrl('sqlite:///var/x.db')).toEqual({ backend: 'sqlite', path: '/var/x.db' });
    expect(parseStoreUrl('./data/x.db')).toEqual({ backend: 'sqlite', path: './data/x.db' });
    const nested = join(dir, 'a', 'b', 'evidence.db');
    const store = await openEvidenceStore(nested);
    await store.appendEvent(event('plain', 0));
    await store.close();
    const memory = await openEvidenceStore('sqlite::memory:');
    expect(await memory.listEvents('plain')).toEqual([]);
    await memory.close();
  });

  it('uses WAL with synchronous=FULL so commits are durable and readers do not block writers', async () => {
    const path = freshPath();
    const store = await openEvidenceStore(`sqlite:${path}`);
    const db = new Database(path);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    await store.close();
    // A path under a regular file cannot be created.
    await expectCode(openEvidenceStore(`sqlite:${join(path, 'nested', 'x.db')}`), 'store.backend_error');
  });

  it('reports a write lock held past the busy timeout as store.unavailable and writes nothing', async () => {
    const path = freshPath();
    const store = await openEvidenceStore(`sqlite:${path}`, { sqliteBusyTimeoutMs: 100 });
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      await expectCode(store.appendEvent(event('locked', 0)), 'store.unavailable');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(await store.listEvents('locked')).toEqual([]);
    await store.appendEvent(event('locked', 0));
    expect(await store.listEvents('locked')).toHaveLength(1);
    await store.close();
  });

  it('lets two processes open a fresh file at once and write to it concurrently', async () => {
    const url = `sqlite:${freshPath()}`;
    const script = fileURLToPath(new URL('./sqlite-writer.ts', import.meta.url));
    const count = 150;
    const children = ['a', 'b'].map((name) =>
      run(process.execPath, ['--import', 'tsx', script, url, name, String(count)], {
        cwd: process.cwd(),
        timeout: 60_000,
      }),
    );
    const outputs = await Promise.all(children);
    expect(outputs.map((o) => JSON.parse(o.stdout.trim()) as unknown)).toEqual([
      { name: 'a', wrote: count },
      { name: 'b', wrote: count },
    ]);
    const store = await openEvidenceStore(url);
    try {
      const events = await store.listEvents('shared-run', { limit: 5000 });
      expect(events).toHaveLength(2 * count);
      expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((x, y) => x - y));
      expect((await store.listInvocations('shared-run')).length).toBe(2 * count + 1);
      expect(await store.listMessageGroups('shared-run')).toHaveLength(1);
    } finally {
      await store.close();
    }
    // Commit order shows the writers really interleaved (neither ran alone).
    const order = (
      await raw(url, "SELECT event_id FROM events WHERE run_id = 'shared-run' ORDER BY rowid")
    ).map((r) => String(r.event_id).slice(3, 4));
    const switches = order.filter((w, i) => i > 0 && w !== order[i - 1]).length;
    expect(switches).toBeGreaterThan(1);
  }, 90_000);
});
