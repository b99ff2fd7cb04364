import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ProofBundle } from '../../src/contract/proof-bundle.js';
import { envelopesOf, projectPublic } from '../../src/client/evidence/public-projection.js';
import { readAllEvents } from '../../src/client/evidence/read-all-events.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { testAttestation, writeAttestationFiles } from '../support/attestation.js';
import { collect, harnessBin, runCli, type CliResult } from './cli-support.js';

/** The refund run's requester: the one erasable value of its events. */
const CUSTOMER = 'C1001';

/** How often `text` occurs in `haystack`. */
const occurrences = (haystack: string, text: string) => haystack.split(text).length - 1;

/**
 * Crypto-shredding end to end (docs/evidence-chain.md, "Erasable values"): a real refund run stores
 * its requester as a salted commitment in the chain; `harness verify` passes before and after
 * `harness erase`; reads show `[withheld by policy]`; the value leaves the evidence store's rows and
 * file; a bundle without values verifies in a fresh directory, and one with values detects a changed
 * value.
 */
describe('harness erase: salted commitments of erasable values on a real refund run', () => {
  let h: HarnessFixture;
  let env: NodeJS.ProcessEnv;
  let runId = '';
  let dbFile = '';
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);
  const bare = (cwd: string, ...args: string[]): Promise<CliResult> => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('HARNESS_') && !k.startsWith('TEMPORAL_')),
    );
    return collect(spawn(process.execPath, [harnessBin, ...args], { cwd, env: clean, stdio: 'pipe' }));
  };
  /** `harness verify --bundle` of `bundle` in a fresh directory with nothing configured. */
  const verifyElsewhere = async (bundle: ProofBundle): Promise<CliResult> => {
    const fresh = mkdtempSync(join(tmpdir(), 'harness-auditor-'));
    writeFileSync(join(fresh, 'proof.json'), JSON.stringify(bundle));
    return bare(fresh, 'verify', '--bundle', 'proof.json');
  };
  const exported = async (...flags: string[]): Promise<ProofBundle> => {
    const file = join(h.dir, `bundle-${flags.length}.json`);
    const r = await cli('export', runId, '--bundle', file, ...flags);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(readFileSync(file, 'utf8')) as ProofBundle;
  };
  /** Every row of the evidence store holding `text`, as `table`. */
  const tablesHolding = (text: string): string[] => {
    const db = new Database(dbFile, { readonly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
        name: string;
      }[];
      const hits: string[] = [];
      for (const { name } of tables) {
        if (name.startsWith('retrieval_fts')) continue;
        for (const row of db.prepare(`SELECT * FROM "${name}"`).all())
          for (let i = 0; i < occurrences(JSON.stringify(row), text); i++) hits.push(name);
      }
      return hits.sort();
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    const attestation = testAttestation();
    h = await createHarnessFixture('cli-erase', {}, { attestation: attestation.signer });
    // The registry verifies the workers' heads; `harness erase` signs its records with their key.
    const { registryFile: keys, keyFile: key } = writeAttestationFiles(h.dir, attestation);
    dbFile = join(h.dir, 'evidence.db');
    env = {
      HARNESS_ATTESTATION_KEYS: keys,
      HARNESS_ATTESTATION_KEY: key,
      HARNESS_TASK_QUEUE: h.taskQueue,
      HARNESS_STORE_URL: `sqlite:${dbFile}`,
      HARNESS_REFUND_DB: join(h.dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    };
    const handle = await h.start({
      task: { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: CUSTOMER },
    });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    expect(((await handle.result()) as { status: string }).status).toBe('succeeded');
    runId = handle.workflowId;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('keeps the requester out of the chained events: a commitment there, the value in erasable_values', async () => {
    const held = tablesHolding(CUSTOMER);
    expect(held).not.toContain('events');
    expect(held.filter((t) => t === 'erasable_values')).toHaveLength(2);
    const events = await cli('events', runId);
    expect(events.stdout).toContain(CUSTOMER);
  });

  it('verifies with every stored value opened and checked, and a bundle without values verifies elsewhere', async () => {
    const r = await cli('verify', runId);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^PASS +commitments +commitments\.ok +2 erasable value\(s\) committed: 2 opened and checked, 0 withheld by policy/m,
    );

    const redacted = await exported();
    expect(redacted.erasure?.openings).toEqual([]);
    expect(redacted.chain.events.some((e) => e.body.includes(CUSTOMER))).toBe(false);
    const elsewhere = await verifyElsewhere(redacted);
    expect(elsewhere.code, elsewhere.stdout).toBe(0);
    expect(elsewhere.stdout).toContain('0 opened and checked, 2 withheld by policy');
    // Outside the chain the bundle withholds the copies too (docs/evidence-chain.md, "Withheld outside
    // the chain"): here the workflow's start input, which names the customer.
    const started = (
      redacted.history as {
        events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { data: string }[] } } }[];
      }
    ).events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!.data;
    const input = Buffer.from(started, 'base64').toString('utf8');
    expect(input).not.toContain(CUSTOMER);
    expect(input).toMatch(/"customerId":"\[withheld by policy #[0-9a-f]{32}\]"/);
  });

  it('checks each opened value of a bundle with values: a changed one is commitments.mismatch', async () => {
    const opened = await exported('--with-values');
    expect(opened.erasure!.openings.map((o) => [o.path, o.value])).toEqual([
      ['/data/userId', JSON.stringify(CUSTOMER)],
      ['/envelope/data/userId', JSON.stringify(CUSTOMER)],
    ]);
    expect((await verifyElsewhere(opened)).stdout).toContain('2 opened and checked, 0 withheld by policy');
    const changed = structuredClone(opened);
    changed.erasure!.openings[0]!.value = JSON.stringify('C2002');
    const r = await verifyElsewhere(changed);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^FAIL +commitments +commitments\.mismatch +the value given for event \d+ at \/data\/userId/m,
    );
    expect(r.stdout).toMatch(/^PASS +chain +chain\.ok/m);
  });

  it('refuses an erasure without who asks (exit 2) or of an unknown run (exit 3), erasing nothing', async () => {
    expect((await cli('erase', runId)).code).not.toBe(0);
    expect((await cli('erase', runId, '--by', 'dpo', '--path', 'userId')).code).toBe(2);
    expect((await cli('erase', 'no-such-run', '--by', 'dpo')).code).toBe(3);
    expect(tablesHolding(CUSTOMER).filter((t) => t === 'erasable_values')).toHaveLength(2);
  });

  it('erases the requester: verify still passes, reads show withheld by policy, the value leaves the store', async () => {
    const erased = await cli(
      'erase',
      runId,
      '--by',
      'dpo@example.com',
      '--reason',
      'GDPR Art. 17 request 42',
    );
    expect(erased.code, erased.stderr).toBe(0);
    expect(erased.stdout).toContain(
      `erased 2 value(s) of 1 event(s) of run ${runId} (/userId), erasure 1 by dpo@example.com`,
    );

    const r = await cli('verify', runId);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('0 opened and checked, 2 withheld by policy');
    expect(r.stdout).toMatch(/erased 2 by dpo@example\.com at \S+ \(\/userId\)/);
    expect(r.stdout).toMatch(
      /^PASS +erasures +erasures\.ok +1 erasure\(s\) chained and signed, 2 value\(s\) erased/m,
    );
    expect(r.stdout).not.toContain('missing');

    const events = await cli('events', runId);
    expect(events.stdout).toContain('[withheld by policy]');
    expect(events.stdout).not.toContain(CUSTOMER);
    const json = (await cli('events', runId, '--json')).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: unknown });
    expect(json.find((e) => e.type === 'run.started')?.data).toMatchObject({
      userId: '[withheld by policy]',
    });

    const projected = projectPublic(envelopesOf(await readAllEvents(h.composition.store, runId)));
    expect(projected.events.find((e) => e.type === 'run.started')?.data).toMatchObject({
      userId: '[withheld by policy]',
    });

    const elsewhere = await verifyElsewhere(await exported('--with-values'));
    expect(elsewhere.code, elsewhere.stdout).toBe(0);
    expect(elsewhere.stdout).toContain('0 opened and checked, 2 withheld by policy');

    // No row holds it but the order tool's own output (its result and artifact, which the Temporal
    // history mirrors: not covered, docs/evidence-chain.md), and the file holds no other copy.
    const held = tablesHolding(CUSTOMER);
    expect([...new Set(held)]).toEqual(['artifacts', 'invocation_results']);
    const bytes = [dbFile, `${dbFile}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => occurrences(readFileSync(f).toString('latin1'), CUSTOMER))
      .reduce((a, b) => a + b, 0);
    expect(bytes).toBe(held.length);
  });
});
