import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Text } from '../../src/activities/store/index.js';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { verifyProofBundle, type ProofReport } from '../../src/client/proof/verify-bundle.js';
import { headClaimsOf } from '../../src/client/proof/head-claims.js';
import { historyFacts } from '../../src/client/proof/history-facts.js';
import type { ProofBundle } from '../../src/contract/proof-bundle.js';
import { eventHash, genesisHash, genesisOfFirstEvent } from '../../src/contract/evidence-chain.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { testAttestation } from '../support/attestation.js';
import { historyOf } from '../support/history.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';

const line = (r: ProofReport, check: string) => r.checks.find((c) => c.check === check)!;

/**
 * Heads at commit points and the run's seal (docs/evidence-chain.md, "Commit points", "The seal"):
 * a refund run with its approval, on a worker with an attestation key signing an interval head every
 * 5 events, and the same run on a worker without a key (the history-cost comparison).
 */
describe('evidence chain commit points and the run seal (agent-run-seal-v1) on the real server', () => {
  let h: HarnessFixture;
  let plain: HarnessFixture;
  let db: Database.Database;
  let run: string;
  let sealedHandle: WorkflowHandle;
  let unsignedHandle: WorkflowHandle;
  const attestation = testAttestation();

  async function refundWithApproval(f: HarnessFixture): Promise<WorkflowHandle> {
    const handle = await f.start({
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    expect(((await handle.result()) as { status: string }).status).toBe('succeeded');
    return handle;
  }
  const verifyStored = async () =>
    verifyProofBundle(await collectProofBundle(h.composition.store, h.t.client, run, attestation.registry));
  const rowsOf = () =>
    db.prepare('SELECT seq, type, body FROM events WHERE run_id = ? ORDER BY seq').all(run) as {
      seq: number;
      type: string;
      body: string;
    }[];
  /** Recompute every link of the run's chain, as someone with write access but no key can. */
  function relink(): void {
    const rows = rowsOf();
    let prev = genesisHash(sha256Text, genesisOfFirstEvent(JSON.parse(rows[0]!.body) as never));
    const update = db.prepare('UPDATE events SET prev_hash = ?, chain_hash = ? WHERE run_id = ? AND seq = ?');
    for (const row of rows) {
      const hash = eventHash(sha256Text, row.body, prev);
      update.run(prev, hash, run, row.seq);
      prev = hash;
    }
  }

  beforeAll(async () => {
    h = await createHarnessFixture(
      'evidence-seal',
      {},
      { attestation: { ...attestation.signer, everyEvents: 5 } },
    );
    plain = await createHarnessFixture('evidence-unsigned');
    sealedHandle = await refundWithApproval(h);
    unsignedHandle = await refundWithApproval(plain);
    run = sealedHandle.workflowId;
    db = new Database(join(h.dir, 'evidence.db'));
    await recordFixtureIfAsked(h.t.client, run, 'refund-graph-sealed-v1');
  }, 90_000);
  afterAll(async () => {
    db?.close();
    await h?.close();
    await plain?.close();
  });

  it('ends with run.sealed, signed as the seal; writes are signed before and after; interval heads every 5 events', async () => {
    const rows = rowsOf();
    const last = rows.at(-1)!;
    expect(last.type).toBe('run.sealed');
    expect(rows.at(-2)!.type).toBe('run.completed');
    expect((JSON.parse(last.body) as { data: unknown }).data).toEqual({
      status: 'succeeded',
      events: last.seq - 1,
    });

    const exported = await collectProofBundle(h.composition.store, h.t.client, run, attestation.registry);
    const facts = historyFacts(exported.history as Record<string, unknown>);
    const claims = headClaimsOf(facts.heads, run);
    expect(claims.filter((c) => c.at === 'seal').map((c) => c.seq)).toEqual([last.seq]);
    const writes = db
      .prepare(
        'SELECT DISTINCT seq FROM invocation_intents WHERE run_id = ? AND body LIKE \'%"effect":"write"%\'',
      )
      .all(run) as { seq: number }[];
    expect(writes.length).toBeGreaterThan(0);
    for (const { seq } of writes) {
      expect(claims.some((c) => c.at === 'write.before' && c.call === seq)).toBe(true);
      expect(claims.some((c) => c.at === 'write.after' && c.call === seq)).toBe(true);
    }
    const every = claims.filter((c) => c.at === 'every').map((c) => c.seq);
    expect(every.length).toBeGreaterThan(0);
    expect(every.every((s) => s % 5 === 0)).toBe(true);
    // Every fifth event has its head, also those that rode with a model or tool call's input.
    const signedAt = new Set(claims.map((c) => c.seq));
    const multiples = rows.map((r) => r.seq).filter((s) => s % 5 === 0);
    expect(multiples.filter((s) => !signedAt.has(s))).toEqual([]);
    expect(multiples.length).toBeGreaterThan(4);

    const report = await verifyStored();
    expect(report.ok).toBe(true);
    expect(line(report, 'seal').code).toBe('seal.ok');
    expect(line(report, 'commits').code).toBe('commits.ok');
  });

  it('adds no history event: the same activities, markers and signals as the run on a worker without a key', async () => {
    const types = async (handle: WorkflowHandle) =>
      (await historyOf(handle)).map((e) => e.activityType ?? e.type);
    const signed = await types(sealedHandle);
    const unsigned = await types(unsignedHandle);
    console.info(
      `refund run with approval: ${signed.length} history events signed, ${unsigned.length} unsigned`,
    );
    // Workflow tasks and the approval wait's timer follow timing (a slow local activity, a signal
    // arriving before or after the wait began); every other event is the run's own and must match.
    // Counted, not ordered: a signal may land before or after an upsert.
    const own = (types: string[]) =>
      types.filter((t) => !/^EVENT_TYPE_(WORKFLOW_TASK|TIMER)_/.test(t)).sort();
    expect(own(signed)).toEqual(own(unsigned));
    expect(own(signed).filter((t) => !t.startsWith('EVENT_TYPE_'))).toContain('recordEvents');
  });

  it('detects a run whose seal was cut off the end of the chain (seal.missing)', async () => {
    const sealed = rowsOf().at(-1)!;
    const row = db
      .prepare('SELECT * FROM events WHERE run_id = ? AND seq = ?')
      .get(run, sealed.seq) as Record<string, unknown>;
    db.prepare('DELETE FROM events WHERE run_id = ? AND seq = ?').run(run, sealed.seq);
    try {
      const report = await verifyStored();
      expect(line(report, 'chain').code).toBe('chain.ok');
      expect(line(report, 'seal').code).toBe('seal.missing');
      expect(report.ok).toBe(false);
    } finally {
      const cols = Object.keys(row);
      db.prepare(`INSERT INTO events (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(
        ...cols.map((c) => row[c]),
      );
    }
    expect((await verifyStored()).ok).toBe(true);
  });

  it('detects a seal rewritten with its chain recomputed (seal.mismatch)', async () => {
    const sealed = rowsOf().at(-1)!;
    const forged = sealed.body.replace(/"events":\d+/, '"events":3');
    expect(forged).not.toBe(sealed.body);
    db.prepare('UPDATE events SET body = ? WHERE run_id = ? AND seq = ?').run(forged, run, sealed.seq);
    try {
      relink();
      const report = await verifyStored();
      expect(line(report, 'chain').code).toBe('chain.ok');
      expect(line(report, 'seal').code).toBe('seal.mismatch');
    } finally {
      db.prepare('UPDATE events SET body = ? WHERE run_id = ? AND seq = ?').run(sealed.body, run, sealed.seq);
      relink();
    }
    expect((await verifyStored()).ok).toBe(true);
  });

  describe('in the bundle', () => {
    let bundle: ProofBundle;
    beforeAll(async () => {
      bundle = await collectProofBundle(h.composition.store, h.t.client, run, attestation.registry);
    });
    /** A copy of the bundle whose history payloads pass through `edit` (decoded JSON values). */
    function edited(edit: (value: Record<string, unknown>) => void): ProofBundle {
      const b = JSON.parse(JSON.stringify(bundle)) as ProofBundle;
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (typeof node !== 'object' || node === null) return;
        const o = node as Record<string, unknown>;
        const meta = o.metadata as { encoding?: string } | undefined;
        if (typeof o.data === 'string' && meta?.encoding === Buffer.from('json/plain').toString('base64')) {
          const value = JSON.parse(Buffer.from(o.data, 'base64').toString('utf8')) as unknown;
          if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
            edit(value as Record<string, unknown>);
            o.data = Buffer.from(JSON.stringify(value)).toString('base64');
          }
          return;
        }
        Object.values(o).forEach(visit);
      };
      visit(b.history);
      return b;
    }

    it('verifies as exported', () => {
      expect(verifyProofBundle(bundle).ok).toBe(true);
    });

    it("detects a write's commit-point heads left out (commits.write_unsigned)", () => {
      const b = edited((v) => {
        if (Array.isArray(v.heads) && typeof v.status === 'string') delete v.heads;
      });
      expect(line(verifyProofBundle(b), 'commits').code).toBe('commits.write_unsigned');
    });

    it('detects the signed seal left out (seal.unsigned)', () => {
      const seal = rowsOf().at(-1)!.seq;
      const b = edited((v) => {
        if (typeof v.head !== 'string') return;
        const [claims] = headClaimsOf([v.head], run);
        if (claims?.at === 'seal' && claims.seq === seal) delete v.head;
      });
      expect(line(verifyProofBundle(b), 'seal').code).toBe('seal.unsigned');
    });
  });
});
