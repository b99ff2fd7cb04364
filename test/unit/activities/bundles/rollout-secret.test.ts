import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createShowcaseComposition } from '../../../../apps/showcase/composition.js';
import { loadBundleCatalog, type BundleCatalog } from '../../../../src/activities/bundles/bundle-catalog.js';
import { armOfBucket } from '../../../../src/activities/bundles/rollout-arm.js';
import {
  devRolloutSecretPath,
  resolveRolloutSecret,
} from '../../../../src/activities/bundles/rollout-secret.js';
import { TEST_PRINCIPALS } from '../../../support/principals.js';

const PROMPT = {
  schemaVersion: 1,
  kind: 'prompt',
  name: 'support-prompt',
  version: 'v1',
  profile: 'support.answer@v1',
  instructions: 'Answer from the read tools.',
};
const SLOTS = { profile: 'support.answer@v1', policy: 'read_only@v1' };
const IDS = Array.from({ length: 2000 }, (_, i) => `refund-ord-${1000 + i}`);
const A = Buffer.from('rollout-secret-of-fleet-a-0123456789abcdef');
const B = Buffer.from('rollout-secret-of-fleet-b-0123456789abcdef');

/** A bundles folder with a 50 % rollout of a second prompt version. */
function rolloutFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rollout-secret-'));
  writeFileSync(join(dir, 'p1.yaml'), stringifyYaml(PROMPT));
  writeFileSync(join(dir, 'p2.yaml'), stringifyYaml({ ...PROMPT, version: 'v2', instructions: 'New.' }));
  writeFileSync(
    join(dir, 'rollout.yaml'),
    stringifyYaml({
      schemaVersion: 1,
      id: 'support-v2',
      stable: { prompts: ['support-prompt@v1'] },
      candidate: { percent: 50, prompts: ['support-prompt@v2'] },
    }),
  );
  return dir;
}

const armsOf = (c: BundleCatalog): string[] =>
  IDS.map((workflowId) => c.pin({ workflowId, ...SLOTS })!.pin.arm);

describe('rollout arms salted with a worker-side secret', () => {
  const dir = rolloutFolder();

  it('the same secret gives the same arm for every id, on every catalog loaded with it', () => {
    const one = armsOf(loadBundleCatalog(dir, { rolloutSecret: A }));
    expect(armsOf(loadBundleCatalog(dir, { rolloutSecret: A }))).toEqual(one);
    expect(armsOf(loadBundleCatalog(dir).withRolloutSecret(Buffer.from(A)))).toEqual(one);
    const candidates = one.filter((a) => a === 'candidate').length;
    expect(candidates).toBeGreaterThan(900);
    expect(candidates).toBeLessThan(1100);
  });

  it('another secret assigns independently: a starter without the secret cannot predict the arm', () => {
    const a = armsOf(loadBundleCatalog(dir, { rolloutSecret: A }));
    const b = armsOf(loadBundleCatalog(dir, { rolloutSecret: B }));
    // Independent 50 % draws agree about half the time (mean 1000, sd ~22 over 2000 ids).
    const agree = a.filter((arm, i) => arm === b[i]).length;
    expect(agree).toBeGreaterThan(900);
    expect(agree).toBeLessThan(1100);
    // The unsalted assignment a starter could compute (SHA-256 of rollout id NUL workflow id, as
    // before) predicts the salted arm no better than a coin.
    const guess = IDS.map((id) =>
      armOfBucket(createHash('sha256').update(`support-v2\u0000${id}`).digest().readUInt32BE(0) % 10_000, 50),
    );
    const right = guess.filter((arm, i) => arm === a[i]).length;
    expect(right).toBeGreaterThan(900);
    expect(right).toBeLessThan(1100);
  });

  it('the secret is in no pin, digest or serialization; a rollout without a secret pins nothing', () => {
    const salted = loadBundleCatalog(dir, { rolloutSecret: A });
    const pin = salted.pin({ workflowId: 'refund-ord-1', ...SLOTS });
    const text = A.toString('utf8');
    expect(JSON.stringify(pin)).not.toContain(text);
    expect(JSON.stringify(salted)).not.toContain(text);
    expect(salted.digest).toBe(loadBundleCatalog(dir, { rolloutSecret: B }).digest);
    const unsalted = loadBundleCatalog(dir);
    expect(unsalted.salted).toBe(false);
    expect(() => unsalted.pin({ workflowId: 'refund-ord-1', ...SLOTS })).toThrow(
      /needs a worker-side secret/,
    );
    // No rollout: nothing to assign, no secret needed.
    const plain = mkdtempSync(join(tmpdir(), 'rollout-none-'));
    writeFileSync(join(plain, 'p1.yaml'), stringifyYaml(PROMPT));
    expect(loadBundleCatalog(plain).pin({ workflowId: 'x', ...SLOTS })).toBeUndefined();
  });
});

describe('resolveRolloutSecret', () => {
  const secretText = 'a-rollout-secret-from-the-environment-0123';

  it('takes the option, then HARNESS_ROLLOUT_SECRET, then HARNESS_ROLLOUT_SECRET_FILE', () => {
    expect(resolveRolloutSecret({ secret: A, env: { HARNESS_ROLLOUT_SECRET: secretText } })).toMatchObject({
      source: 'option',
      secret: A,
    });
    expect(resolveRolloutSecret({ env: { HARNESS_ROLLOUT_SECRET: secretText } })).toMatchObject({
      source: 'env',
      secret: Buffer.from(secretText),
    });
    const file = join(mkdtempSync(join(tmpdir(), 'rollout-file-')), 'secret');
    writeFileSync(file, `${secretText}\n`);
    expect(resolveRolloutSecret({ env: { HARNESS_ROLLOUT_SECRET_FILE: file } })).toMatchObject({
      source: 'file',
      secret: Buffer.from(secretText),
    });
  });

  it('refuses both variables, a short secret and an unreadable file (bundle.invalid)', () => {
    const invalid = { code: 'bundle.invalid' };
    expect(() =>
      resolveRolloutSecret({
        env: { HARNESS_ROLLOUT_SECRET: secretText, HARNESS_ROLLOUT_SECRET_FILE: '/x' },
      }),
    ).toThrow(expect.objectContaining(invalid));
    expect(() => resolveRolloutSecret({ env: { HARNESS_ROLLOUT_SECRET: 'too-short' } })).toThrow(
      /32 to 4096 bytes/,
    );
    expect(() =>
      resolveRolloutSecret({ env: { HARNESS_ROLLOUT_SECRET_FILE: '/nonexistent/rollout-secret' } }),
    ).toThrow(expect.objectContaining(invalid));
  });

  it('without one, generates the dev secret once under .data/keys (0600) and reuses it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rollout-data-'));
    const first = resolveRolloutSecret({ env: {}, dataDir });
    expect(first).toMatchObject({ source: 'dev-file', created: true, path: devRolloutSecretPath(dataDir) });
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    const again = resolveRolloutSecret({ env: {}, dataDir });
    expect(again).toMatchObject({ source: 'dev-file', created: false });
    expect(again.secret.equals(first.secret)).toBe(true);
    expect(readFileSync(first.path!, 'utf8').trim()).toBe(first.secret.toString('utf8'));
  });

  it("a worker's composition salts its rollout with the environment's secret", async () => {
    const dir = rolloutFolder();
    const tmp = mkdtempSync(join(tmpdir(), 'rollout-worker-'));
    const composition = await createShowcaseComposition({
      storeUrl: `sqlite:${join(tmp, 'evidence.db')}`,
      refundStorePath: join(tmp, 'refund.db'),
      principals: TEST_PRINCIPALS,
      env: { HARNESS_BUNDLES: dir, HARNESS_ROLLOUT_SECRET: A.toString('utf8') },
    });
    try {
      expect(composition.bundles?.salted).toBe(true);
      expect(armsOf(composition.bundles!)).toEqual(armsOf(loadBundleCatalog(dir, { rolloutSecret: A })));
    } finally {
      await composition.close();
    }
  });
});
