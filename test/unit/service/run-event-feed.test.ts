import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEventFeeds, type FeedCursor, type FeedRead } from '../../../src/service/run-event-feed.js';
import {
  openEvidenceStore,
  type EvidenceStore,
  type StoredEvent,
} from '../../../src/activities/store/index.js';
import { event, newRunId } from '../activities/store/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-feed-'));
let store: EvidenceStore;
/** The real SQLite store, with its event reads counted. */
let reads = 0;
let failReads = false;
let counted: EvidenceStore;

beforeAll(async () => {
  store = await openEvidenceStore(`sqlite:${join(dir, 'feed.db')}`);
  counted = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'listEvents')
        return (...args: Parameters<EvidenceStore['listEvents']>) => {
          reads += 1;
          if (failReads) return Promise.reject(new Error('database is locked'));
          return target.listEvents(...args);
        };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const never = new AbortController().signal;

/** Read from `cursor` until `count` events arrived after `after` (or the feed says it is closed). */
async function drain(cursor: FeedCursor, after: number, until: (seen: StoredEvent[]) => boolean) {
  const seen: StoredEvent[] = [];
  let last = after;
  let closed: FeedRead | undefined;
  for (let i = 0; i < 200 && !until(seen); i++) {
    const read = await cursor.next(last, 200, never);
    if (read.kind === 'events') {
      seen.push(...read.events);
      last = read.events[read.events.length - 1]!.seq;
    } else if (read.kind === 'closed') {
      closed = read;
      break;
    }
  }
  return { seen, closed };
}

describe('RunEventFeeds', () => {
  it('serves every stream of a run from one store poller', async () => {
    const runId = newRunId('feed');
    const feeds = new RunEventFeeds({ store: counted, pollMs: 50 });
    const running = () => Promise.resolve(true);
    const cursors = Array.from({ length: 20 }, () => feeds.follow(runId, running));
    expect(feeds.size).toBe(1);
    reads = 0;
    const writer = (async () => {
      for (let seq = 0; seq < 10; seq++) {
        await store.appendEvent(event(runId, seq));
        await new Promise((r) => setTimeout(r, 20));
      }
      await store.appendEvent(event(runId, 10, { type: 'run.completed' }));
    })();
    const results = await Promise.all(
      cursors.map((c) => drain(c, -1, (seen) => seen.some((e) => e.type === 'run.completed'))),
    );
    await writer;
    for (const r of results) expect(r.seen.map((e) => e.seq)).toEqual([...Array(11).keys()]);
    // One poller: a few reads per 50 ms over ~0.3 s, not 20 streams' worth.
    expect(reads).toBeLessThan(40);
    // Having the terminal event, a stream is told the run has ended.
    await expect(cursors[0]!.next(10, 100, never)).resolves.toEqual({ kind: 'closed', reason: 'ended' });
    for (const c of cursors) c.release();
    expect(feeds.size).toBe(0);
  });

  it('lets a follower far behind the in-memory window catch up from the store with no gap', async () => {
    const runId = newRunId('feed');
    await store.appendEvents(Array.from({ length: 2_500 }, (_, seq) => event(runId, seq)));
    await store.appendEvent(event(runId, 2_500, { type: 'run.failed' }));
    const feeds = new RunEventFeeds({ store: counted, pollMs: 20 });
    const ahead = feeds.follow(runId, () => Promise.resolve(true));
    const ended = (seen: StoredEvent[]) => seen.some((e) => e.type === 'run.failed');
    expect((await drain(ahead, 2_400, ended)).seen.map((e) => e.seq)).toEqual(
      Array.from({ length: 100 }, (_, i) => 2_401 + i),
    );
    // The feed keeps the latest 1,000 events; this follower starts at the first one.
    const behind = feeds.follow(runId, () => Promise.resolve(true));
    const { seen } = await drain(behind, -1, ended);
    expect(seen.map((e) => e.seq)).toEqual([...Array(2_501).keys()]);
    ahead.release();
    behind.release();
  });

  it('ends the stream when the workflow closed without a terminal event', async () => {
    const runId = newRunId('feed');
    await store.appendEvent(event(runId, 0));
    const feeds = new RunEventFeeds({ store: counted, pollMs: 20 });
    const cursor = feeds.follow(runId, () => Promise.resolve(false));
    const { seen, closed } = await drain(cursor, -1, () => false);
    expect(seen.map((e) => e.seq)).toEqual([0]);
    expect(closed).toEqual({ kind: 'closed', reason: 'workflow_closed' });
    cursor.release();
  });

  it('fails the followers of a run whose store read fails, and starts afresh for the next one', async () => {
    const runId = newRunId('feed');
    await store.appendEvent(event(runId, 0));
    const feeds = new RunEventFeeds({ store: counted, pollMs: 20 });
    failReads = true;
    try {
      const cursor = feeds.follow(runId, () => Promise.resolve(true));
      await expect(cursor.next(-1, 500, never)).rejects.toThrow(/database is locked/);
      cursor.release();
    } finally {
      failReads = false;
    }
    const again = feeds.follow(runId, () => Promise.resolve(true));
    const read = await again.next(-1, 500, never);
    expect(read.kind === 'events' && read.events.map((e) => e.seq)).toEqual([0]);
    again.release();
    expect(feeds.size).toBe(0);
  });

  it('stops polling when the service closes', async () => {
    const runId = newRunId('feed');
    const feeds = new RunEventFeeds({ store: counted, pollMs: 20 });
    const cursor = feeds.follow(runId, () => Promise.resolve(true));
    await cursor.next(-1, 50, never);
    await feeds.close(); // resolves once the poller returned
    reads = 0;
    await new Promise((r) => setTimeout(r, 150));
    expect(reads).toBe(0);
    expect(feeds.size).toBe(0);
    cursor.release();
  });
});
