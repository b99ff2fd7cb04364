import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportRetailDb, retailDbDigest } from '../../../apps/retail/db/retail-export.js';
import { RetailDbTemplate } from '../../../apps/retail/db/retail-template.js';
import { openRetailDbFile } from '../../../apps/retail/db/retail-db.js';
import { dbJson, retailTemplate } from './retail-test-support.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('retail database: db.json into SQLite and back', () => {
  it('exports exactly the data of db.json (500 users, 1000 orders, 50 products)', () => {
    const db = retailTemplate().fresh();
    const exported = exportRetailDb(db);
    const original = dbJson();
    expect(Object.keys(exported.users)).toHaveLength(500);
    expect(Object.keys(exported.orders)).toHaveLength(1000);
    expect(Object.keys(exported.products)).toHaveLength(50);
    expect(exported).toStrictEqual(original);
    db.close();
  });

  it('keeps db.json order: users, orders, products, and every list', () => {
    const db = retailTemplate().fresh();
    const original = dbJson();
    const firstUsers = db.sqlite.prepare('SELECT user_id FROM users ORDER BY pos LIMIT 3').pluck().all();
    expect(firstUsers).toEqual(Object.keys(original.users).slice(0, 3));
    const firstOrder = Object.keys(original.orders)[0] ?? '';
    expect(firstOrder).toBe('#W2611340');
    expect(db.order(firstOrder)).toStrictEqual(original.orders[firstOrder]);
    db.close();
  });

  it('gives each fresh copy its own data: a write in one is not seen by another or by the template', () => {
    const template = retailTemplate();
    const a = template.fresh();
    const b = template.fresh();
    const before = retailDbDigest(b);
    a.setUserAddress('noah_brown_6181', {
      address1: '1 Test Road',
      address2: '',
      city: 'Testville',
      country: 'USA',
      state: 'TX',
      zip: '00000',
    });
    expect(retailDbDigest(a)).not.toBe(before);
    expect(retailDbDigest(b)).toBe(before);
    const c = template.fresh();
    expect(c.user('noah_brown_6181')?.address.city).toBe('Denver');
    for (const db of [a, b, c]) db.close();
  });

  it('writes the template as a database file a worker opens (WAL), with the same data', () => {
    const dir = mkdtempSync(join(tmpdir(), 'retail-db-'));
    dirs.push(dir);
    const path = join(dir, 'retail.db');
    const db = retailTemplate().writeTo(path);
    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    const reopened = openRetailDbFile(path);
    expect(retailDbDigest(reopened)).toBe(retailDbDigest(retailTemplate().fresh()));
    reopened.close();
  });

  it('refuses a value that is not a retail db.json, naming the field', () => {
    const bad = dbJson() as unknown as { orders: Record<string, { status: string }> };
    const first = Object.values(bad.orders)[0];
    if (first) first.status = 'shipped';
    expect(() => RetailDbTemplate.fromJson(bad)).toThrow(/status/);
    expect(() => RetailDbTemplate.fromJson(bad)).toThrow(
      expect.objectContaining({ code: 'retail.db_invalid' }),
    );
    expect(() => RetailDbTemplate.fromJson({ users: {}, orders: {} })).toThrow(
      expect.objectContaining({ code: 'retail.db_invalid' }),
    );
  });

  it('refuses a map key that differs from the id inside its value', () => {
    const data = dbJson();
    const user = data.users.noah_brown_6181;
    if (user === undefined) throw new Error('fixture');
    data.users = { someone_else: user };
    data.orders = {};
    expect(() => RetailDbTemplate.fromJson(data)).toThrow(/someone_else/);
    expect(() => RetailDbTemplate.fromJson(data)).toThrow(
      expect.objectContaining({ code: 'retail.db_invalid' }),
    );
  });

  it('digests equal data equally and different data differently', () => {
    const a = retailTemplate().fresh();
    const b = RetailDbTemplate.fromJson(dbJson()).fresh();
    expect(retailDbDigest(a)).toBe(retailDbDigest(b));
    b.setGiftCardBalance('noah_brown_6181', 'paypal_5727330', 1); // not a gift card: no change
    expect(retailDbDigest(a)).toBe(retailDbDigest(b));
    const giftUser = giftCardOwner(a);
    b.setGiftCardBalance(giftUser.userId, giftUser.cardId, giftUser.balance + 0.01);
    expect(retailDbDigest(a)).not.toBe(retailDbDigest(b));
    a.close();
    b.close();
  });
});

/** The first user with a gift card, and its balance. */
function giftCardOwner(db: ReturnType<RetailDbTemplate['fresh']>): {
  userId: string;
  cardId: string;
  balance: number;
} {
  const row = db.sqlite
    .prepare(
      `SELECT user_id, id, balance FROM payment_methods WHERE source = 'gift_card' ORDER BY user_id LIMIT 1`,
    )
    .get() as { user_id: string; id: string; balance: number };
  return { userId: row.user_id, cardId: row.id, balance: row.balance };
}
