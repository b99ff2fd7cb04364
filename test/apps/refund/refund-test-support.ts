import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCall, ToolContext } from '../../../src/contract/tool.js';
import { openRefundStore } from '../../../apps/refund/business/refund-store.js';
import type { RefundStore, RefundStoreOptions } from '../../../apps/refund/business/refund-store.js';
import { NO_LATENCY } from '../../../apps/refund/business/store-latency.js';

/** Fixed clock of the tests. */
export const NOW = new Date('2026-07-15T12:00:00.000Z');

/** A temp dir holding real SQLite files; `cleanup` removes it. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'refund-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A store on a fresh file in `dir`, fixed clock, no latency unless given, seeded with the defaults. */
export function seededStore(dir: string, options: RefundStoreOptions = {}): RefundStore {
  const store = openRefundStore(join(dir, 'business.db'), {
    clock: () => NOW,
    latency: NO_LATENCY,
    ...options,
  });
  store.seed();
  return store;
}

/** A tool call as the runner would dispatch it; the idempotency key derives from run and seq. */
export function makeCall(tool: string, args: Record<string, unknown>, seq = 1, runId = 'run-test'): ToolCall {
  return { runId, seq, tool, version: 'v1', args, idempotencyKey: `${runId}:${seq}` };
}

/** A tool context that records heartbeats. */
export function recordingContext(signal: AbortSignal = new AbortController().signal): ToolContext & {
  heartbeats: unknown[];
} {
  const heartbeats: unknown[] = [];
  return { signal, heartbeats, heartbeat: (details?: unknown) => void heartbeats.push(details) };
}
