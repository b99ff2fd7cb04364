import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../../src/contract/errors.js';
import { RestrictionPolicy } from '../../../../src/workflows/policy/restriction-policy.js';
import { dispatch, presentation, thrownBy } from './fixtures.js';

const policy = new RestrictionPolicy({
  allowedTools: ['fs.read_file', 'fs.write_file', 'fs.read_many', 'refund.create'],
  allowedEffects: ['read'],
  pathFields: { 'fs.read_file': ['/path'], 'fs.read_many': ['/paths', '/options/base'] },
  allowedRoots: ['workspace', 'docs/public'],
});

describe('RestrictionPolicy', () => {
  it('allows an allowed read tool with a confined path', () => {
    expect(policy.evaluate(dispatch('fs.read_file', 'read', { path: 'workspace/a/b.txt' }))).toEqual({
      decision: 'allow',
      policyVersion: 'restriction@v1',
      reasonCodes: ['policy.restrictions_satisfied'],
      obligations: [],
    });
  });

  it('denies a tool outside the allowed list at presentation and dispatch', () => {
    for (const req of [presentation('shell.exec', 'read'), dispatch('shell.exec', 'read', {})]) {
      const d = policy.evaluate(req);
      expect(d.decision).toBe('deny');
      expect(d.reasonCodes).toEqual(['policy.tool_not_allowed']);
    }
  });

  it('denies an effect outside the allowed effects, even for an allowed tool', () => {
    const d = policy.evaluate(presentation('fs.write_file', 'write'));
    expect(d).toMatchObject({ decision: 'deny', reasonCodes: ['policy.effect_not_allowed'] });
  });

  it('reports both tool and effect refusals', () => {
    expect(policy.evaluate(presentation('db.drop', 'write')).reasonCodes).toEqual([
      'policy.tool_not_allowed',
      'policy.effect_not_allowed',
    ]);
  });

  it('does not check paths at presentation (no arguments yet)', () => {
    expect(policy.evaluate(presentation('fs.read_file', 'read')).decision).toBe('allow');
  });

  it.each([
    [{ path: '/etc/passwd' }, ['policy.path_absolute']],
    [{ path: 'workspace/../../etc' }, ['policy.path_escape']],
    [{ path: 'secrets/key.pem' }, ['policy.path_outside_roots']],
    [{ path: 'docs/private/x' }, ['policy.path_outside_roots']],
    [{ path: 'workspace/\uFF0E\uFF0E/x' }, ['policy.path_invalid']],
    [{ path: 42 }, ['policy.path_invalid']],
  ])('denies path field %j', (args, codes) => {
    expect(policy.evaluate(dispatch('fs.read_file', 'read', args))).toMatchObject({
      decision: 'deny',
      reasonCodes: codes,
    });
  });

  it('checks every element of an array field and nested pointers, with distinct codes', () => {
    const d = policy.evaluate(
      dispatch('fs.read_many', 'read', {
        paths: ['workspace/a', '/abs', 'x/../../y', '/abs2'],
        options: { base: 'other' },
      }),
    );
    expect(d.decision).toBe('deny');
    expect(d.reasonCodes).toEqual([
      'policy.path_absolute',
      'policy.path_escape',
      'policy.path_outside_roots',
    ]);
    expect(
      policy.evaluate(dispatch('fs.read_many', 'read', { paths: ['workspace/a', 'docs/public/b'] })).decision,
    ).toBe('allow');
  });

  it('leaves absent optional path fields to the schema', () => {
    expect(policy.evaluate(dispatch('fs.read_many', 'read', { paths: [] })).decision).toBe('allow');
  });

  it('allows everything when nothing is restricted, and nothing with an empty tool list', () => {
    expect(new RestrictionPolicy({}).evaluate(dispatch('any.tool', 'write', {})).decision).toBe('allow');
    expect(
      new RestrictionPolicy({ allowedTools: [] }).evaluate(presentation('any.tool', 'read')).decision,
    ).toBe('deny');
  });

  it('confines to the whole workspace by default', () => {
    const p = new RestrictionPolicy({ pathFields: { 'fs.read_file': ['/path'] } });
    expect(p.evaluate(dispatch('fs.read_file', 'read', { path: 'any/where.txt' })).decision).toBe('allow');
    expect(p.evaluate(dispatch('fs.read_file', 'read', { path: '../out' })).reasonCodes).toEqual([
      'policy.path_escape',
    ]);
  });

  it.each([
    [{ allowedRoots: ['/abs'] }, 'allowedRoots'],
    [{ allowedRoots: ['../up'] }, 'allowedRoots'],
    [{ pathFields: { 'fs.read_file': ['path'] } }, 'pathFields.fs.read_file'],
    [{ pathFields: { 'fs.read_file': [''] } }, 'pathFields.fs.read_file'],
    [{ allowedEffects: ['delete' as 'read'] }, 'allowedEffects'],
  ])('refuses configuration %j naming %s', (config, field) => {
    const err = thrownBy(() => new RestrictionPolicy(config));
    expect(isHarnessError(err, 'policy.config_invalid')).toBe(true);
    expect((err as { details: { field: string } }).details.field).toBe(field);
  });
});
