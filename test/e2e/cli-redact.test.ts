import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProofBundle } from '../../src/contract/proof-bundle.js';
import { cliProofRig, type CliProofRig } from '../support/cli-proof-rig.js';
import type { CliResult } from './cli-support.js';

/** The refund run's customer: the requester, and the personal data the task and the order tool carry. */
const CUSTOMER = 'C1001';
const EMAIL = 'jane.doe@example.com';
const NAME = 'Jane Doe';
/** The seeded order's phone (`order.read` returns it). */
const PHONE = '13800001001';
/** The data-taint digest of the phone, as the guardrails compute it: unsalted, so a dictionary finds it. */
const TAINT = createHash('sha256').update(PHONE).digest('hex').slice(0, 16);

type Json = Record<string, unknown>;

/**
 * Every string of a bundle file as a person searching it would find it: the file's text, and the text
 * of each base64 `data` of the histories' payloads decoded, except payloads (decoded) `skip` accepts.
 */
function searchable(text: string, skip: (value: unknown) => boolean = () => false): string {
  const decoded: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v !== 'object' || v === null) return;
    const o = v as Json;
    if (typeof o.data === 'string' && typeof o.metadata === 'object') {
      const inner = Buffer.from(o.data, 'base64').toString('utf8');
      let value: unknown = inner;
      try {
        value = JSON.parse(inner);
      } catch {
        /* not JSON */
      }
      if (!skip(value)) decoded.push(inner);
      return;
    }
    Object.values(o).forEach(walk);
  };
  walk(JSON.parse(text));
  return `${text}\n${decoded.join('\n')}`;
}

/** The payloads the verifier checks byte for byte and a bundle keeps: the approver registry, signed decisions. */
const keptAsRecorded = (value: unknown): boolean => {
  const o = value as { registry?: unknown; principals?: { registry?: unknown }; token?: unknown } | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    (o.registry !== undefined || o.principals?.registry !== undefined || typeof o.token === 'string')
  );
};

/**
 * A bundle without values holds no personal data anywhere, and still verifies
 * (docs/evidence-chain.md, "Withheld outside the chain"): a real refund run whose task names the
 * customer's e-mail and name, and whose order tool returns their phone.
 */
describe('harness export --bundle: erasable values withheld in the whole bundle', () => {
  let rig: CliProofRig;
  let runId = '';
  const cli = (...args: string[]): Promise<CliResult> => rig.cli(...args);
  /** `harness verify --bundle` of `text` in a fresh directory with nothing configured. */
  const verifyElsewhere = (text: string): Promise<CliResult> => rig.verifyElsewhere(text);
  let n = 0;
  const exported = (...flags: string[]): Promise<{ text: string; out: CliResult }> =>
    rig.exportBundle(join(rig.h.dir, `bundle-${(n += 1)}.json`), ...flags);

  beforeAll(async () => {
    // `harness erase` signs its records with the workers' key.
    rig = await cliProofRig('cli-redact', {
      task: {
        message: `This is ${NAME} (${EMAIL}): my order ORD-1001 has not shipped for days, please refund`,
        customerId: CUSTOMER,
        email: EMAIL,
        fullName: NAME,
      },
      signingKey: true,
    });
    expect(rig.result.status).toBe('succeeded');
    runId = rig.runId;
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it('with values, the bundle holds them as recorded (the baseline the redaction is measured against)', async () => {
    const { text } = await exported('--with-values');
    const all = searchable(text);
    for (const v of [EMAIL, NAME, PHONE, TAINT, CUSTOMER]) expect(all, v).toContain(v);
    const r = await verifyElsewhere(text);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).not.toContain('outside the chain');
  });

  it('without values, no e-mail, phone, name or taint digest in any byte, payloads decoded; it verifies and says what it withheld', async () => {
    const { text, out } = await exported();
    expect(out.stdout).toMatch(/\d+ copies of \d+ value\(s\) withheld outside the chain/);
    const all = searchable(text);
    for (const v of [EMAIL, NAME, PHONE, TAINT]) expect(all, v).not.toContain(v);
    // The requester stands only where the verifier needs the bytes: the approver registry (a principal).
    expect(all).toContain(CUSTOMER);
    expect(searchable(text, keptAsRecorded)).not.toContain(CUSTOMER);
    expect(all).toMatch(/\[withheld by policy #[0-9a-f]{32}\]/);

    const r = await verifyElsewhere(text);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      /^PASS +commitments +commitments\.ok +2 erasable value\(s\) committed: 0 opened and checked, 2 withheld by policy; outside the chain \d+ copies of \d+ value\(s\) withheld by policy \(invocations [1-9]\d*, artifacts [1-9]\d*, histories [1-9]\d*\)/m,
    );
    expect(r.stdout).toMatch(
      /^PASS +history +history\.ok +\d+ tool results and the end \(succeeded\) agree$/m,
    );
    expect(r.stdout).toMatch(
      /^PASS +artifacts +artifacts\.ok .*digest\(s\) withheld by policy with their data/m,
    );
    expect(r.stdout).not.toContain('missing');
  });

  it('a redacted bundle whose tool result was changed in a field not withheld fails history.result_mismatch', async () => {
    const { text } = await exported();
    const bundle = JSON.parse(text) as ProofBundle;
    const read = bundle.invocations.find((i) => i.intents[0]?.tool === 'order.read')!;
    const output = read.results[0]!.output as { amountCents: number; phone: string };
    expect(output.phone).toMatch(/^\[withheld by policy #/);
    output.amountCents += 100;
    const r = await verifyElsewhere(JSON.stringify(bundle));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL +history +history\.result_mismatch +#\d+ \(order\.read\)/m);
  });

  it('after harness erase, a bundle with values brings no erased value back from invocations or history', async () => {
    const erased = await cli('erase', runId, '--by', 'dpo@example.com', '--reason', 'GDPR Art. 17');
    expect(erased.code, erased.stderr).toBe(0);
    const { text } = await exported('--with-values');
    const bundle = JSON.parse(text) as ProofBundle;
    expect(bundle.erasure?.openings).toEqual([]);
    const all = searchable(text, keptAsRecorded);
    for (const v of [CUSTOMER, EMAIL, NAME, PHONE, TAINT]) expect(all, v).not.toContain(v);
    const r = await verifyElsewhere(text);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/erased 2 by dpo@example\.com/);
    expect(r.stdout).toMatch(/outside the chain \d+ copies/);
    const stored = await cli('verify', runId);
    expect(stored.code, stored.stdout).toBe(0);
  });
});
