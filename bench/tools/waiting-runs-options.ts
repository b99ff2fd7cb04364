import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { WORKER_SETTINGS } from '../lib/rig.js';

/** What one `npm run bench:waiting` measures. */
export interface WaitingOptions {
  /** Levels: N runs each, every level on a fresh dev server and fresh worker processes. */
  readonly runs: readonly number[];
  readonly workers: 1 | 2;
  /** Where the evidence store lives (the refund business store is SQLite either way). */
  readonly store: 'sqlite' | 'postgres';
  /** Requests in flight at a time, for starts, reads and approvals. */
  readonly concurrency: number;
  /** Started runs not yet waiting, at most (a start waits for visibility to show fewer). */
  readonly maxStarting: number;
  /** The sticky cache size of each worker process (`maxCachedWorkflows`). */
  readonly maxCached: number;
  /** Where the dev server's db, the stores and a PostgreSQL cluster live: tmpfs unless `--disk`. */
  readonly dataDir: string;
}

export const WAITING_USAGE = `usage: npm run bench:waiting -- [--runs 250,500,1000] [--workers 1|2] [--store sqlite|postgres]
                               [--concurrency 32] [--max-starting 200] [--max-cached ${WORKER_SETTINGS.maxCachedWorkflows}] [--disk]
  --runs         levels: N refund runs each, all waiting for an approval at once (default 1000)
  --workers      worker processes (default 1)
  --store        the evidence store: sqlite (one file) or postgres (a throwaway cluster; default
                 postgres with 2 workers, sqlite with 1)
  --concurrency  requests in flight at a time (default 32)
  --max-starting started runs not yet waiting, at most (default 200): a burst the workers cannot
                 take within the signed start's 5 minutes would fail runs start.token_expired
  --max-cached   sticky cache size per worker process (default ${WORKER_SETTINGS.maxCachedWorkflows}, the bench's worker setting)
  --disk         keep the servers' files on disk instead of /dev/shm`;

/** @throws Error (with the usage) on an unknown flag or a bad value. */
export function parseWaitingOptions(argv: readonly string[]): WaitingOptions | 'help' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  const valued = ['--runs', '--workers', '--store', '--concurrency', '--max-starting', '--max-cached'];
  argv.forEach((a, i) => {
    if (a.startsWith('--') && ![...valued, '--disk'].includes(a))
      throw new Error(`unknown flag ${a}\n${WAITING_USAGE}`);
    if (!a.startsWith('--') && !valued.includes(argv[i - 1] ?? ''))
      throw new Error(`unexpected argument ${a}\n${WAITING_USAGE}`);
  });
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : argv[i + 1];
  };
  const int = (name: string, raw: string | undefined, fallback: number): number => {
    if (raw === undefined) return fallback;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs a positive integer, not ${raw}`);
    return v;
  };
  const runs = (value('--runs') ?? '1000').split(',').map((r) => int('--runs', r, 0));
  const workers = int('--workers', value('--workers'), 1);
  if (workers !== 1 && workers !== 2) throw new Error(`--workers is 1 or 2\n${WAITING_USAGE}`);
  const store = value('--store') ?? (workers === 2 ? 'postgres' : 'sqlite');
  if (store !== 'sqlite' && store !== 'postgres')
    throw new Error(`--store is sqlite or postgres\n${WAITING_USAGE}`);
  return {
    runs,
    workers,
    store,
    concurrency: int('--concurrency', value('--concurrency'), 32),
    maxStarting: int('--max-starting', value('--max-starting'), 200),
    maxCached: int('--max-cached', value('--max-cached'), WORKER_SETTINGS.maxCachedWorkflows),
    dataDir: argv.includes('--disk') || !existsSync('/dev/shm') ? tmpdir() : '/dev/shm',
  };
}
