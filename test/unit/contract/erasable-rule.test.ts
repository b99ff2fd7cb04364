import { describe, expect, it } from 'vitest';
import { erasableRule } from '../../../src/contract/erasable-rule.js';
import { findErasable } from '../../../src/contract/erasable-values.js';

const event = (type: string, data: Record<string, unknown>) => ({ type, data, envelope: { type, data } });

/** The erasable fields an app declares (docs/evidence-chain.md, "Which values are erasable"). */
describe('erasable fields an app declares', () => {
  it('adds declared keys (case-insensitive, any depth) and per-type pointers (with *) to the default rule', () => {
    const rule = erasableRule({
      keys: ['ZIP'],
      paths: { 'tool.requested': ['/arguments/items/*/serial'], '*': ['/note'] },
    });
    const e = event('tool.requested', {
      userId: 'u1',
      arguments: { items: [{ serial: 'S1', qty: 1 }, { serial: 'S2' }], shipTo: { Zip: '94107' } },
      note: 'n',
    });
    expect(findErasable(e, rule).map((v) => v.path)).toEqual([
      '/data/userId',
      '/data/arguments/items/0/serial',
      '/data/arguments/items/1/serial',
      '/data/arguments/shipTo/Zip',
      '/data/note',
      '/envelope/data/userId',
      '/envelope/data/arguments/items/0/serial',
      '/envelope/data/arguments/items/1/serial',
      '/envelope/data/arguments/shipTo/Zip',
      '/envelope/data/note',
    ]);
    // Another event type: the type's pointers do not apply, the keys and `*` pointers do.
    expect(
      findErasable(event('tool.completed', { items: [{ serial: 'S1' }], zip: 1, note: 'n' }), rule).map(
        (v) => v.path,
      ),
    ).toEqual(['/data/zip', '/data/note', '/envelope/data/zip', '/envelope/data/note']);
    // Without a rule: the default only.
    expect(findErasable(e).map((v) => v.path)).toEqual(['/data/userId', '/envelope/data/userId']);
  });

  it('gives the same declaration the same digest input whatever its order', () => {
    const a = erasableRule({ keys: ['b', 'A'], paths: { 'y.x': ['/b', '/a'], 'a.b': ['/c'] } });
    const b = erasableRule({ paths: { 'a.b': ['/c'], 'y.x': ['/a', '/b', '/a'] }, keys: ['a', 'B'] });
    expect(JSON.stringify(a.declared)).toBe(JSON.stringify(b.declared));
  });

  it('refuses what the schema does not allow and keys the chain or the verifier needs', () => {
    for (const bad of [
      { keys: ['tenantId'] },
      { keys: ['Actor'] },
      { keys: ['a b'] },
      { paths: { 'Tool.Requested': ['/a'] } },
      { paths: { 'tool.requested': [] } },
      { paths: { 'tool.requested': ['/a/toStatus'] } },
      { other: [] },
    ]) {
      let code: unknown;
      try {
        erasableRule(bad);
      } catch (err) {
        code = (err as { code?: unknown }).code;
      }
      expect(code, JSON.stringify(bad)).toBe('erasable.invalid');
    }
  });
});
