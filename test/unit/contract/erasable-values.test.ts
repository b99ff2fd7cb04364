import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  commitmentDigest,
  dataPath,
  findCommitments,
  findErasable,
  isCommitment,
  opens,
  replaceAt,
  valueAt,
} from '../../../src/contract/erasable-values.js';
import { checkCommitments } from '../../../src/client/proof/check-commitments.js';
import type { StoredEvent } from '../../../src/contract/store-records.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const SALT = 'ab'.repeat(32);

describe('salted commitments of erasable values', () => {
  it('commits to SHA-256(salt bytes ‖ canonical JSON of the value)', () => {
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from(SALT, 'hex'), Buffer.from('"Zoë C1001"', 'utf8')]))
      .digest('hex');
    expect(commitmentDigest(sha256, SALT, '"Zoë C1001"')).toBe(`sha256:${expected}`);
    expect(() => commitmentDigest(sha256, 'AB'.repeat(32), '"x"')).toThrow(/64 lowercase hex/);
    expect(() => commitmentDigest(sha256, 'ab', '"x"')).toThrow(/64 lowercase hex/);
  });

  it('opens only with the same salt and value', () => {
    const c = commitmentDigest(sha256, SALT, '"C1001"');
    expect(opens(sha256, c, { path: '/data/userId', salt: SALT, value: '"C1001"' })).toBe(true);
    expect(opens(sha256, c, { path: '/data/userId', salt: SALT, value: '"C1002"' })).toBe(false);
    expect(opens(sha256, c, { path: '/data/userId', salt: 'cd'.repeat(32), value: '"C1001"' })).toBe(false);
    expect(opens(sha256, c, { path: '/data/userId', salt: 'not hex', value: '"C1001"' })).toBe(false);
  });

  it('recognises only the exact commitment object', () => {
    const c = commitmentDigest(sha256, SALT, '1');
    expect(isCommitment({ $commit: c })).toBe(true);
    expect(isCommitment({ $commit: c, more: 1 })).toBe(false);
    expect(isCommitment({ $commit: 'sha256:xyz' })).toBe(false);
    expect(isCommitment('withheld')).toBe(false);
  });

  it('finds erasable values by key at any depth of data and the envelope copy, whole and escaped', () => {
    const data = {
      userId: 'u-1',
      tenantId: 'acme',
      nested: [{ Email: 'a@example.com' }, { 'a/b': { phone: '+1 555' } }],
      address: { city: 'Berlin' },
      customerId: null,
    };
    const event = { data, envelope: { data, versions: {} } };
    expect(findErasable(event).map((f) => [f.path, f.value])).toEqual([
      ['/data/userId', 'u-1'],
      ['/data/nested/0/Email', 'a@example.com'],
      ['/data/nested/1/a~1b/phone', '+1 555'],
      ['/data/address', { city: 'Berlin' }],
      ['/envelope/data/userId', 'u-1'],
      ['/envelope/data/nested/0/Email', 'a@example.com'],
      ['/envelope/data/nested/1/a~1b/phone', '+1 555'],
      ['/envelope/data/address', { city: 'Berlin' }],
    ]);
    expect(findErasable({ data: { tenantId: 'acme', actor: 'operator@example.com' } })).toEqual([]);
    // Something shaped like a commitment in the data (a tool's or a model's) is committed as a value.
    const forged = { $commit: `sha256:${'1'.repeat(64)}` };
    expect(findErasable({ data: { note: forged, list: [forged] } })).toEqual([
      { path: '/data/note', value: forged },
      { path: '/data/list/0', value: forged },
    ]);
    expect(dataPath('/envelope/data/nested/1/a~1b/phone')).toBe('/nested/1/a~1b/phone');
    expect(dataPath('/data/userId')).toBe('/userId');
  });

  it('replaces and reads by pointer, and finds the commitments again', () => {
    const tree = { data: { list: [{ 'a/b': 1 }], email: 'x' } };
    expect(replaceAt(tree, '/data/list/0/a~1b', { $commit: `sha256:${'0'.repeat(64)}` })).toBe(true);
    expect(replaceAt(tree, '/data/missing', 1)).toBe(false);
    expect(replaceAt(tree, '/data/list/5', 1)).toBe(false);
    expect(valueAt(tree, '/data/email')).toBe('x');
    expect(valueAt(tree, '/data/nothing/here')).toBeUndefined();
    expect(findCommitments(tree)).toEqual([
      { path: '/data/list/0/a~1b', commitment: `sha256:${'0'.repeat(64)}` },
    ]);
  });
});

describe('the commitments check of the verifier', () => {
  const c = commitmentDigest(sha256, SALT, '"C1001"');
  const events = [
    { seq: 4, data: { userId: { $commit: c } }, envelope: { data: { userId: { $commit: c } } } },
    { seq: 5, data: { step: 'x' }, envelope: {} },
  ] as unknown as StoredEvent[];
  const opening = { seq: 4, path: '/data/userId', salt: SALT, value: '"C1001"' };

  it('counts withheld values, never missing ones, and names the erasures', () => {
    const erasure = {
      runId: 'r',
      seq: 1,
      erasedAt: '2026-02-01T00:00:00.000Z',
      actor: 'dpo',
      reason: null,
      paths: ['/userId'],
      values: 2,
      events: 1,
    };
    const withheld = checkCommitments(sha256, events, { erasures: [erasure], openings: [] });
    expect(withheld).toMatchObject({ ok: true, code: 'commitments.ok' });
    expect(withheld.detail).toBe(
      '2 erasable value(s) committed: 0 opened and checked, 2 withheld by policy; erased 2 by dpo at 2026-02-01T00:00:00.000Z (/userId)',
    );
    expect(checkCommitments(sha256, events, undefined).detail).toContain('2 withheld by policy');
    expect(checkCommitments(sha256, [events[1]!], undefined).detail).toBe('no erasable values committed');
  });

  it('checks each opening: a changed value, or one for a place without a commitment, is commitments.mismatch', () => {
    expect(checkCommitments(sha256, events, { erasures: [], openings: [opening] }).detail).toContain(
      '1 opened and checked, 1 withheld by policy',
    );
    const changed = checkCommitments(sha256, events, {
      erasures: [],
      openings: [{ ...opening, value: '"C1002"' }],
    });
    expect(changed).toMatchObject({ ok: false, code: 'commitments.mismatch' });
    expect(changed.detail).toContain('event 4 at /data/userId does not open its commitment');
    const elsewhere = checkCommitments(sha256, events, {
      erasures: [],
      openings: [{ ...opening, seq: 5, path: '/data/step' }],
    });
    expect(elsewhere).toMatchObject({ ok: false, code: 'commitments.mismatch' });
    expect(elsewhere.detail).toContain('does not open a commitment there');
  });
});
