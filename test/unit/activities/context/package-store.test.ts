import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelMessageInput } from '../../../../src/workflows/runner/ports.js';
import {
  CHUNKED_PACKAGE_FORMAT,
  loadRequestPackage,
  storeRequestPackage,
  type PackageWriter,
} from '../../../../src/activities/context/package-store.js';
import { planRequest } from '../../../../src/activities/context/plan-request.js';
import {
  renderRequest,
  type RequestPackageInput,
  type TranscriptGroup,
  type TurnMemo,
} from '../../../../src/activities/context/request-package.js';
import { openEvidenceStore, type EvidenceStore } from '../../../../src/activities/store/index.js';

const RUN = 'run-pkg-store';

/** A run of `turns` calls, each answered with one tool call whose result opens the next call. */
function call(turns: number, memo?: TurnMemo): RequestPackageInput {
  const first: ModelMessageInput[] = [
    { role: 'system', content: 'You are a careful agent.', trust: 'system' },
    { role: 'user', content: 'Walk the ledger.', trust: 'untrusted' },
  ];
  const result = (k: number): ModelMessageInput => ({
    role: 'tool',
    toolCallId: `c${k}`,
    content: `{"page":${k},"lines":12}`,
    trust: 'untrusted',
  });
  const groups: TranscriptGroup[] = [];
  for (let k = 1; k <= turns; k++)
    groups.push({
      seq: k,
      input: k === 1 ? first : [result(k - 1)],
      output: {
        text: '',
        toolCalls: [{ id: `c${k}`, name: 'ledger.read', version: 'v1', args: { page: k } }],
      },
    });
  return {
    runId: RUN,
    callSeq: turns + 1,
    groups,
    newMessages: [result(turns)],
    budget: { contextWindow: 16_000, outputReserve: 500, requestOverhead: 100, tokenizer: 'o200k_base' },
    route: 'scripted@v1',
    now: '2026-12-02T12:00:00.000Z',
    policyVersion: 'context/v3',
    summaries: new Map(),
    ...(memo ? { memo } : {}),
  };
}

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

describe('request packages stored in shared chunks', () => {
  let dir: string;
  let store: EvidenceStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'package-store-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives back exactly the package stored, which renders to exactly what was sent', async () => {
    const plan = planRequest(call(400));
    expect(plan.pkg.omittedTurns).toBeDefined();
    const ref = await storeRequestPackage(store, plan.pkg, plan.turnOf);
    const loaded = await loadRequestPackage(store, ref.ref);
    expect(loaded).toEqual(plan.pkg);
    expect(renderRequest(loaded)).toEqual(plan.messages);
    // The index names its chunks by digest: its own digest covers every item.
    const index = (await store.getBlob(ref.ref)) as { format: string; chunks: { ref: string }[] };
    expect(index.format).toBe(CHUNKED_PACKAGE_FORMAT);
    expect(index.chunks.length).toBeGreaterThan(3);
  });

  it('a full window adds only the chunks that changed since the previous call, not the whole window', async () => {
    const memo: TurnMemo = { tokenizer: 'o200k_base', turns: new Map() };
    const writes: unknown[][] = [];
    const recording: PackageWriter = {
      putIndexedBlobs: (d, index, events) => {
        writes.push([...d]);
        return store.putIndexedBlobs(d, index, events);
      },
    };
    const before = planRequest(call(599, memo));
    await storeRequestPackage(recording, before.pkg, before.turnOf);
    const plan = planRequest(call(600, memo));
    await storeRequestPackage(recording, plan.pkg, plan.turnOf);
    const [first, second] = writes.map((w) => w.map((c) => JSON.stringify(c)));
    const added = second!.filter((c) => !first!.includes(c));
    const addedBytes = added.reduce((n, c) => n + Buffer.byteLength(c), 0);
    expect(added.length).toBeGreaterThan(0);
    expect(added.length).toBeLessThanOrEqual(3);
    expect(addedBytes).toBeLessThan(bytes(plan.pkg) / 4);
  });

  it('still reads a package stored whole (before the chunks)', async () => {
    const plan = planRequest(call(5));
    const whole = await store.putBlob(plan.pkg);
    expect(await loadRequestPackage(store, whole.ref)).toEqual(plan.pkg);
  });

  it('refuses an index whose chunks do not match it, or that names a chunk the store does not have', async () => {
    const plan = planRequest(call(40));
    const ref = await storeRequestPackage(store, plan.pkg, plan.turnOf);
    const index = (await store.getBlob(ref.ref)) as { chunks: { ref: string; items: number }[] };
    const miscounted = await store.putBlob({
      ...index,
      chunks: index.chunks.map((c, i) => (i === 0 ? { ...c, items: c.items + 1 } : c)),
    });
    await expect(loadRequestPackage(store, miscounted.ref)).rejects.toMatchObject({
      code: 'store.invalid_record',
    });
    const broken = await store.putBlob({ ...index, chunks: [{ ref: 'not a ref', items: 'x' }] });
    await expect(loadRequestPackage(store, broken.ref)).rejects.toMatchObject({
      code: 'store.invalid_record',
    });
    const missing = await store.putBlob({
      ...index,
      chunks: [{ ref: `blob://sha256:${'1'.repeat(64)}`, items: 2 }],
    });
    await expect(loadRequestPackage(store, missing.ref)).rejects.toMatchObject({ code: 'store.not_found' });
    await expect(storeRequestPackage(store, plan.pkg, plan.turnOf.slice(1))).rejects.toThrow(RangeError);
  });
});
