import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Text } from '../../src/activities/store/index.js';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { verifyProofBundle, type ProofReport } from '../../src/client/proof/verify-bundle.js';
import type { ProofBundle } from '../../src/contract/proof-bundle.js';
import { eventHash, genesisHash, genesisOfFirstEvent } from '../../src/contract/evidence-chain.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { testAttestation } from '../support/attestation.js';

/** The line of `check` in a report. */
const line = (r: ProofReport, check: string) => r.checks.find((c) => c.check === check)!;
const codes = (r: ProofReport) => r.checks.map((c) => c.code);

describe('evidence proof of a refund run (chain, verifier, bundle) on the real server', () => {
  let h: HarnessFixture;
  let db: Database.Database;
  const runs: string[] = [];
  const attestation = testAttestation();

  async function refundWithApproval(): Promise<string> {
    const handle = await h.start({
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    expect(((await handle.result()) as { status: string }).status).toBe('succeeded');
    return handle.workflowId;
  }
  const verifyStored = async (runId: string) =>
    verifyProofBundle(await collectProofBundle(h.composition.store, h.t.client, runId, attestation.registry));
  /** Change the database, verify, and put it back as it was. */
  async function tampered(runId: string, sql: string, restore: string): Promise<ProofReport> {
    db.exec(sql);
    try {
      return await verifyStored(runId);
    } finally {
      db.exec(restore);
    }
  }
  /** What someone with write access but no key can do: recompute every link of the run's chain. */
  function relink(runId: string): void {
    const rows = db.prepare('SELECT seq, body FROM events WHERE run_id = ? ORDER BY seq').all(runId) as {
      seq: number;
      body: string;
    }[];
    let prev = genesisHash(sha256Text, genesisOfFirstEvent(JSON.parse(rows[0]!.body) as never));
    const update = db.prepare('UPDATE events SET prev_hash = ?, chain_hash = ? WHERE run_id = ? AND seq = ?');
    for (const row of rows) {
      const hash = eventHash(sha256Text, row.body, prev);
      update.run(prev, hash, runId, row.seq);
      prev = hash;
    }
  }
  const eventBody = (runId: string, type: string) =>
    db.prepare('SELECT seq, body FROM events WHERE run_id = ? AND type = ?').get(runId, type) as {
      seq: number;
      body: string;
    };

  beforeAll(async () => {
    h = await createHarnessFixture('evidence-proof', {}, { attestation: attestation.signer });
    runs.push(await refundWithApproval(), await refundWithApproval());
    db = new Database(join(h.dir, 'evidence.db'));
  }, 60_000);
  afterAll(async () => {
    db?.close();
    await h?.close();
  });

  it('verifies a clean refund run with its approval: every check passes', async () => {
    const report = await verifyStored(runs[0]!);
    expect(codes(report)).toEqual([
      'chain.ok',
      'heads.ok',
      'seal.ok',
      'commits.ok',
      'decisions.ok',
      'writes.ok',
      'history.ok',
      'artifacts.ok',
      'policy.ok',
      'commitments.ok',
      'erasures.ok',
    ]);
    expect(report.ok).toBe(true);
    expect(line(report, 'decisions').detail).toMatch(/^1 decision/);
  });

  it('detects a changed event and a dropped event in the database', async () => {
    const run = runs[0]!;
    const step = eventBody(run, 'route.decided');
    const changed = await tampered(
      run,
      `UPDATE events SET body = replace(body, '"route.no_tools"', '"route.forged"') WHERE run_id = '${run}' AND seq = ${step.seq}`,
      `UPDATE events SET body = replace(body, '"route.forged"', '"route.no_tools"') WHERE run_id = '${run}' AND seq = ${step.seq}`,
    );
    expect(line(changed, 'chain').code).toBe('chain.event_altered');
    expect(changed.ok).toBe(false);

    const gone = eventBody(run, 'checkpoint.saved');
    db.prepare('DELETE FROM events WHERE run_id = ? AND seq = ?').run(run, gone.seq);
    try {
      const dropped = await verifyStored(run);
      expect(line(dropped, 'chain').code).toBe('chain.event_missing');
    } finally {
      const row = JSON.parse(gone.body) as { eventId: string; type: string; occurredAt: string };
      db.prepare(
        'INSERT INTO events (run_id, seq, event_id, type, occurred_at, body, provisional) VALUES (?, ?, ?, ?, ?, ?, 0)',
      ).run(run, gone.seq, row.eventId, row.type, row.occurredAt, gone.body);
      relink(run);
    }
    expect((await verifyStored(run)).ok).toBe(true);
  });

  it('detects a changed result and a changed artifact against the history, even with the chain relinked', async () => {
    const run = runs[0]!;
    const result = await tampered(
      run,
      `UPDATE invocation_results SET body = replace(body, '"amountCents":12900', '"amountCents":99900') WHERE run_id = '${run}' AND seq = 4`,
      `UPDATE invocation_results SET body = replace(body, '"amountCents":99900', '"amountCents":12900') WHERE run_id = '${run}' AND seq = 4`,
    );
    expect(line(result, 'chain').code).toBe('chain.ok');
    expect(line(result, 'history').code).toBe('history.result_mismatch');

    const id = `${run}/4/refund`;
    const artifact = await tampered(
      run,
      `UPDATE artifacts SET body = replace(body, '"amountCents":12900', '"amountCents":99900') WHERE id = '${id}'`,
      `UPDATE artifacts SET body = replace(body, '"amountCents":99900', '"amountCents":12900') WHERE id = '${id}'`,
    );
    expect(line(artifact, 'artifacts').code).toBe('artifacts.digest_mismatch');
    expect(line(artifact, 'history').code).toBe('history.artifact_mismatch');
  });

  it('detects a changed decision, also when the chain was recomputed without a key', async () => {
    const run = runs[0]!;
    const decided = eventBody(run, 'human.decided');
    const forged = decided.body.replaceAll('"actor":"operator@example.com"', '"actor":"mallory@example.com"');
    expect(forged).not.toBe(decided.body);
    db.prepare('UPDATE events SET body = ? WHERE run_id = ? AND seq = ?').run(forged, run, decided.seq);
    try {
      expect(line(await verifyStored(run), 'chain').code).toBe('chain.event_altered');
      relink(run);
      const report = await verifyStored(run);
      expect(line(report, 'chain').code).toBe('chain.ok');
      // Without the worker's key the recomputed chain no longer matches the heads it signed.
      expect(line(report, 'heads').code).toBe('heads.mismatch');
      expect(line(report, 'decisions').code).toBe('decisions.token_unbound');
    } finally {
      db.prepare('UPDATE events SET body = ? WHERE run_id = ? AND seq = ?').run(
        decided.body,
        run,
        decided.seq,
      );
      relink(run);
    }
    expect((await verifyStored(run)).ok).toBe(true);
  });

  describe('the bundle', () => {
    let bundle: ProofBundle;
    let other: ProofBundle;
    beforeAll(async () => {
      bundle = await collectProofBundle(h.composition.store, h.t.client, runs[0]!, attestation.registry);
      other = await collectProofBundle(h.composition.store, h.t.client, runs[1]!, attestation.registry);
    });
    const copy = (): ProofBundle => JSON.parse(JSON.stringify(bundle)) as ProofBundle;
    const historyEvents = (b: ProofBundle) => (b.history as { events: Record<string, unknown>[] }).events;
    const signalPayload = (b: ProofBundle) => {
      const e = historyEvents(b).find(
        (x) =>
          (x.workflowExecutionSignaledEventAttributes as { signalName?: string } | undefined)?.signalName ===
          'approve',
      )!;
      return (e.workflowExecutionSignaledEventAttributes as { input: { payloads: { data: string }[] } }).input
        .payloads[0]!;
    };
    const decode = (data: string) =>
      JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as Record<string, unknown>;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

    it('verifies exported as JSON text and read back', () => {
      const text = JSON.stringify(bundle);
      expect(verifyProofBundle(JSON.parse(text) as ProofBundle).ok).toBe(true);
    });

    it("detects an old decision's token replayed into the record", () => {
      const b = copy();
      const mine = signalPayload(b);
      const replayed = decode(signalPayload(other).data);
      mine.data = encode({ ...decode(mine.data), token: replayed.token });
      const report = verifyProofBundle(b);
      expect(line(report, 'decisions').code).toBe('decisions.token_unbound');
      expect(line(report, 'decisions').detail).toContain('decision.wrong_workflow');
    });

    it('detects a swapped approver registry', () => {
      const b = copy();
      let swapped = 0;
      for (const e of historyEvents(b)) {
        const marker = e.markerRecordedEventAttributes as
          { details?: { result?: { payloads?: { data: string }[] } } } | undefined;
        const p = marker?.details?.result?.payloads?.[0];
        if (typeof p?.data !== 'string') continue;
        const value = decode(p.data);
        const holder = (value.principals ?? value) as { registry?: { principals: { id: string }[] } };
        if (!holder.registry) continue;
        // The attacker's key takes the operator's place under the recorded digest.
        holder.registry.principals = holder.registry.principals.map((pr) =>
          pr.id === 'operator@example.com' ? { ...pr, keys: [] } : pr,
        );
        p.data = encode(value);
        swapped += 1;
      }
      expect(swapped).toBeGreaterThan(0);
      expect(line(verifyProofBundle(b), 'decisions').code).toBe('decisions.registry_mismatch');
    });

    it('checks the signed heads with the attestation keys: rotated keys still verify, unknown or expired ones do not', () => {
      expect(line(verifyProofBundle(bundle), 'heads').detail).toMatch(/signed heads match the chain/);
      const rotated = testAttestation('worker-test-0');
      const old = { ...rotated.registry.keys[0]!, notAfter: new Date(Date.now() - 7_200_000).toISOString() };
      const withRotated = { version: 1 as const, keys: [old, ...attestation.registry.keys] };
      expect(line(verifyProofBundle(bundle, { attestation: withRotated }), 'heads').code).toBe('heads.ok');
      const stranger = testAttestation();
      expect(line(verifyProofBundle(bundle, { attestation: stranger.registry }), 'heads').code).toBe(
        'heads.signature_invalid',
      );
      const expired = {
        version: 1 as const,
        keys: [{ ...attestation.registry.keys[0]!, notAfter: old.notAfter }],
      };
      expect(line(verifyProofBundle(bundle, { attestation: expired }), 'heads').code).toBe(
        'heads.key_not_valid',
      );
      expect(line(verifyProofBundle({ ...bundle, attestation: null }), 'heads').code).toBe(
        'heads.no_registry',
      );
    });

    it('detects a bundle whose events were edited as text', () => {
      const b = copy();
      const row = b.chain.events.find((r) => r.body.includes('"type":"tool.completed"'))!;
      row.body = canonicalJson({ ...(JSON.parse(row.body) as object), type: 'tool.failed' });
      expect(line(verifyProofBundle(b), 'chain').code).toBe('chain.event_altered');
    });
  });
});
