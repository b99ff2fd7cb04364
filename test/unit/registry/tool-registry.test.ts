import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import type { ToolDefinition } from '../../../src/contract/tool.js';
import { ToolNotFoundError, ToolRegistry } from '../../../src/registry/index.js';
import { sha256Digest } from '../../../src/activities/digest.js';
import { closed, definition, executor } from './helpers.js';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isHarnessError(err)) return err.code;
    throw err;
  }
  return 'no error';
}

describe('ToolRegistry', () => {
  it('returns the registered definition, executor and a working validator', async () => {
    const registry = new ToolRegistry();
    const exec = executor({ status: 'ready' });
    registry.register(definition(), exec);
    const tool = registry.get('report.generate', 'v1');
    expect(tool.definition.name).toBe('report.generate');
    expect(tool.executor).toBe(exec);
    expect(tool.validate({ title: 'q3' })).toEqual({ ok: true, args: { title: 'q3' } });
    expect(tool.validate({ title: 3 }).ok).toBe(false);
    const signal = new AbortController().signal;
    const run = await tool.executor.execute(
      { signal, heartbeat: () => undefined },
      { runId: 'r', seq: 1, tool: 'report.generate', version: 'v1', args: {}, idempotencyKey: 'r:1' },
    );
    expect(run.output).toEqual({ status: 'ready' });
  });

  it('throws registry.not_found for an unknown name or version', () => {
    const registry = new ToolRegistry();
    registry.register(definition(), executor());
    expect(codeOf(() => registry.get('report.generate', 'v2'))).toBe('registry.not_found');
    expect(codeOf(() => registry.get('report.other', 'v1'))).toBe('registry.not_found');
    expect(() => registry.get('x.y', 'v1')).toThrow(ToolNotFoundError);
    expect(registry.has('report.generate', 'v2')).toBe(false);
  });

  it('keeps several versions of one name side by side', () => {
    const registry = new ToolRegistry();
    registry.register(definition({ version: 'v1' }), executor({ v: 1 }));
    registry.register(
      definition({
        version: 'v2',
        parameters: closed({ title: { type: 'string' }, year: { type: 'integer' } }),
      }),
      executor({ v: 2 }),
    );
    expect(registry.get('report.generate', 'v1').validate({ year: 2024 }).ok).toBe(false);
    expect(registry.get('report.generate', 'v2').validate({ year: 2024 }).ok).toBe(true);
    expect(registry.list().map((d) => d.version)).toEqual(['v1', 'v2']);
  });

  it('rejects the same name and version with a different definition (registry.conflict)', () => {
    const registry = new ToolRegistry();
    const exec = executor();
    registry.register(definition(), exec);
    expect(codeOf(() => registry.register(definition({ description: 'Another description' }), exec))).toBe(
      'registry.conflict',
    );
    expect(codeOf(() => registry.register(definition({ effect: 'write' }), exec))).toBe('registry.conflict');
    expect(registry.get('report.generate', 'v1').definition.effect).toBe('read');
  });

  it('rejects the same definition with a different executor (registry.conflict, executor_differs)', () => {
    const registry = new ToolRegistry();
    registry.register(definition(), executor());
    try {
      registry.register(definition(), executor());
      expect.unreachable();
    } catch (err) {
      expect(isHarnessError(err, 'registry.conflict')).toBe(true);
      expect((err as ToolNotFoundError).details.reason).toBe('executor_differs');
    }
  });

  it('treats an identical re-registration with the same executor as a no-op, whatever the key order', () => {
    const registry = new ToolRegistry();
    const exec = executor();
    registry.register(definition(), exec);
    const reordered = {
      effect: 'read',
      parameters: { properties: { title: { type: 'string' } }, additionalProperties: false, type: 'object' },
      description: 'Generate an observed report',
      version: 'v1',
      name: 'report.generate',
    } as ToolDefinition;
    expect(() => registry.register(reordered, exec)).not.toThrow();
    expect(registry.list()).toHaveLength(1);
  });

  it('copies and freezes definitions, so later mutation of the input changes nothing', () => {
    const registry = new ToolRegistry();
    const def = definition();
    registry.register(def, executor());
    (def.parameters.properties as Record<string, unknown>).extra = { type: 'string' };
    const stored = registry.get('report.generate', 'v1').definition;
    expect(Object.keys(stored.parameters.properties as object)).toEqual(['title']);
    expect(Object.isFrozen(stored.parameters)).toBe(true);
    expect(registry.get('report.generate', 'v1').validate({ extra: 'x' }).ok).toBe(false);
  });

  it('rejects a call to an unregistered tool with a tool.unknown rejection', () => {
    const registry = new ToolRegistry();
    registry.register(definition(), executor());
    const result = registry.validateCall('report.generate', 'v9', {});
    expect(result).toMatchObject({
      ok: false,
      rejection: { code: 'tool.unknown', tool: 'report.generate', version: 'v9' },
    });
    expect(registry.validateCall(42, null, {})).toMatchObject({
      ok: false,
      rejection: { code: 'tool.unknown', tool: 'number' },
    });
    expect(registry.validateCall('report.generate', 'v1', { title: 'x' })).toEqual({
      ok: true,
      args: { title: 'x' },
    });
  });
});

describe('ToolRegistry.snapshot', () => {
  function populated(): ToolRegistry {
    const registry = new ToolRegistry();
    registry.register(definition({ name: 'zeta.tool', version: 'v1' }), executor());
    registry.register(definition({ name: 'alpha.tool', version: 'v10' }), executor());
    registry.register(definition({ name: 'alpha.tool', version: 'v2' }), executor());
    registry.register(definition({ name: 'mid.tool', version: 'v1', effect: 'write' }), executor());
    return registry;
  }

  it('sorts definitions by name then version number and digests them', () => {
    const snap = populated().snapshot();
    expect(snap.definitions.map((d) => `${d.name}@${d.version}`)).toEqual([
      'alpha.tool@v2',
      'alpha.tool@v10',
      'mid.tool@v1',
      'zeta.tool@v1',
    ]);
    expect(snap.digest).toBe(sha256Digest(snap.definitions));
    expect(snap.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('gives the same digest whatever the registration order', () => {
    const a = populated();
    const b = new ToolRegistry();
    b.register(definition({ name: 'mid.tool', version: 'v1', effect: 'write' }), executor());
    b.register(definition({ name: 'alpha.tool', version: 'v2' }), executor());
    b.register(definition({ name: 'zeta.tool', version: 'v1' }), executor());
    b.register(definition({ name: 'alpha.tool', version: 'v10' }), executor());
    expect(b.snapshot().digest).toBe(a.snapshot().digest);
  });

  it('changes the digest when any definition changes', () => {
    const a = populated();
    const b = populated();
    b.register(definition({ name: 'zeta.tool', version: 'v2' }), executor());
    expect(b.snapshot().digest).not.toBe(a.snapshot().digest);
    expect(b.snapshot(['alpha.tool', 'mid.tool', 'zeta.tool@v1']).digest).toBe(a.snapshot().digest);
  });

  it('selects all versions by bare name and one version by name@vN', () => {
    const registry = populated();
    expect(registry.snapshot(['alpha.tool']).definitions.map((d) => d.version)).toEqual(['v2', 'v10']);
    expect(
      registry.snapshot(['alpha.tool@v10', 'zeta.tool']).definitions.map((d) => `${d.name}@${d.version}`),
    ).toEqual(['alpha.tool@v10', 'zeta.tool@v1']);
    expect(registry.snapshot(['alpha.tool', 'alpha.tool@v2']).definitions).toHaveLength(2);
    expect(registry.snapshot([]).definitions).toEqual([]);
  });

  it('reflects registrations made after an earlier snapshot; callers cannot change a later one', () => {
    const registry = populated();
    const before = registry.snapshot();
    const beforeSelected = registry.snapshot(['zeta.tool']);
    (before.definitions as ToolDefinition[]).pop();
    expect(registry.snapshot().definitions).toHaveLength(4);
    registry.register(definition({ name: 'zeta.tool', version: 'v2' }), executor());
    const after = registry.snapshot();
    expect(after.definitions).toHaveLength(5);
    expect(after.digest).toBe(sha256Digest(after.definitions));
    expect(after.digest).not.toBe(before.digest);
    expect(registry.snapshot(['zeta.tool']).definitions.map((d) => d.version)).toEqual(['v1', 'v2']);
    expect(registry.snapshot(['zeta.tool']).digest).not.toBe(beforeSelected.digest);
  });

  it('throws registry.not_found for a selector that matches nothing, and invalid_name for a malformed one', () => {
    const registry = populated();
    expect(codeOf(() => registry.snapshot(['alpha.tool@v3']))).toBe('registry.not_found');
    expect(codeOf(() => registry.snapshot(['missing.tool']))).toBe('registry.not_found');
    expect(codeOf(() => registry.snapshot(['Alpha']))).toBe('registry.invalid_name');
  });
});
