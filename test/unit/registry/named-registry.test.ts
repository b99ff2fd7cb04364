import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import { HarnessError } from '../../../src/contract/errors.js';
import { NamedRegistry } from '../../../src/registry/named-registry.js';

interface Item {
  name: string;
  version: string;
  payload?: number;
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('NamedRegistry', () => {
  it('looks items up by exact name and version only', () => {
    const r = new NamedRegistry<Item>({ kind: 'profile' });
    const a1 = { name: 'goal', version: 'v1', payload: 1 };
    const a2 = { name: 'goal', version: 'v2', payload: 2 };
    r.register(a1);
    r.register(a2);
    expect(r.get('goal', 'v1')).toBe(a1);
    expect(r.get('goal', 'v2')).toBe(a2);
    expect(r.find('goal', 'v3')).toBeUndefined();
    expect(r.has('goal', 'v1')).toBe(true);
    expect(r.has('Goal', 'v1')).toBe(false);
  });

  it('refuses a duplicate name/version with registry.conflict and keeps the first', () => {
    const r = new NamedRegistry<Item>({ kind: 'profile' });
    r.register({ name: 'goal', version: 'v1', payload: 1 });
    const err = thrownBy(() => r.register({ name: 'goal', version: 'v1', payload: 2 }));
    expect(isHarnessError(err, 'registry.conflict')).toBe(true);
    expect((err as HarnessError).details).toEqual({ kind: 'profile', name: 'goal', version: 'v1' });
    expect(r.get('goal', 'v1').payload).toBe(1);
  });

  it('reports an unknown item with registry.not_found', () => {
    const err = thrownBy(() => new NamedRegistry<Item>({ kind: 'evaluator' }).get('x', 'v1'));
    expect(isHarnessError(err, 'registry.not_found')).toBe(true);
    expect((err as Error).message).toBe('evaluator x/v1 is not registered');
  });

  it('refuses empty names and versions, and what validate refuses, storing nothing', () => {
    const r = new NamedRegistry<Item>({
      kind: 'profile',
      validate: (i) => {
        if (i.payload === undefined)
          throw new HarnessError('registry.invalid_definition', 'payload required');
      },
    });
    expect(
      isHarnessError(
        thrownBy(() => r.register({ name: '', version: 'v1', payload: 1 })),
        'registry.invalid_name',
      ),
    ).toBe(true);
    expect(
      isHarnessError(
        thrownBy(() => r.register({ name: 'a', version: '', payload: 1 })),
        'registry.invalid_version',
      ),
    ).toBe(true);
    expect(
      isHarnessError(
        thrownBy(() => r.register({ name: 'a', version: 'v1' })),
        'registry.invalid_definition',
      ),
    ).toBe(true);
    expect(r.list()).toEqual([]);
  });

  it('lists items by name then version, independent of registration order', () => {
    const r = new NamedRegistry<Item>({ kind: 'profile' });
    for (const [name, version] of [
      ['b', 'v2'],
      ['a', 'v1'],
      ['b', 'v1'],
      ['a', 'v10'],
    ])
      r.register({ name: name!, version: version! });
    expect(r.list().map((i) => `${i.name}/${i.version}`)).toEqual(['a/v1', 'a/v10', 'b/v1', 'b/v2']);
  });
});
