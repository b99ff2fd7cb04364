import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  MigrationError,
  MigrationErrorCodes,
  MigrationRegistry,
  type MigrationStep,
} from '../../../../src/workflows/migration/index.js';

/** A toy shape `note`: v1 {text}, v2 {text, tags}, v3 {body, tags}, v4 {body, tags, lang}. */
const V1 = z.strictObject({ schemaVersion: z.literal(1), text: z.string() });
const V2 = z.strictObject({ schemaVersion: z.literal(2), text: z.string(), tags: z.array(z.string()) });
const V3 = z.strictObject({ schemaVersion: z.literal(3), body: z.string(), tags: z.array(z.string()) });
const V4 = z.strictObject({
  schemaVersion: z.literal(4),
  body: z.string(),
  tags: z.array(z.string()),
  lang: z.string(),
});

const s12: MigrationStep<z.output<typeof V1>, z.output<typeof V2>> = {
  shape: 'note',
  from: 1,
  to: 2,
  input: V1,
  output: V2,
  description: 'adds tags',
  migrate: (v) => ({ schemaVersion: 2, text: v.text, tags: [] }),
};
const s23: MigrationStep<z.output<typeof V2>, z.output<typeof V3>> = {
  shape: 'note',
  from: 2,
  to: 3,
  input: V2,
  output: V3,
  description: 'renames text to body',
  migrate: (v) => ({ schemaVersion: 3, body: v.text, tags: v.tags }),
};
const s34: MigrationStep<z.output<typeof V3>, z.output<typeof V4>> = {
  shape: 'note',
  from: 3,
  to: 4,
  input: V3,
  output: V4,
  description: 'adds lang',
  migrate: (v) => ({ schemaVersion: 4, body: v.body, tags: v.tags, lang: 'und' }),
};

const full = () =>
  new MigrationRegistry()
    .defineShape({ shape: 'note', currentVersion: 4, current: V4 })
    .register(s12)
    .register(s23)
    .register(s34);

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(MigrationError);
    return (err as MigrationError).code;
  }
};

describe('MigrationRegistry', () => {
  it('applies the whole chain from any older version, in order', () => {
    const r = full().migrate('note', { schemaVersion: 1, text: 'hi' });
    expect(r).toEqual({
      value: { schemaVersion: 4, body: 'hi', tags: [], lang: 'und' },
      fromVersion: 1,
      toVersion: 4,
      applied: ['note@1->2', 'note@2->3', 'note@3->4'],
    });
    expect(full().migrate('note', { schemaVersion: 3, body: 'b', tags: ['x'] }).applied).toEqual([
      'note@3->4',
    ]);
  });

  it('property: migrating from any version yields a valid current value; migrating it again changes nothing', () => {
    const reg = full();
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.string(), { maxLength: 3 }),
        fc.integer({ min: 1, max: 4 }),
        (text, tags, version) => {
          const samples: Record<number, unknown> = {
            1: { schemaVersion: 1, text },
            2: { schemaVersion: 2, text, tags },
            3: { schemaVersion: 3, body: text, tags },
            4: { schemaVersion: 4, body: text, tags, lang: 'en' },
          };
          const r = reg.migrate('note', samples[version]);
          expect(V4.safeParse(r.value).success).toBe(true);
          expect(r.applied).toHaveLength(4 - version);
          expect(reg.migrate('note', r.value)).toEqual({
            value: r.value,
            fromVersion: 4,
            toVersion: 4,
            applied: [],
          });
        },
      ),
    );
  });

  it('fails closed: too new, no path (gap or below the first step), bad input, bad output, throwing step', () => {
    expect(codeOf(() => full().migrate('note', { schemaVersion: 5, body: 'x' }))).toBe(
      MigrationErrorCodes.versionTooNew,
    );
    const gap = new MigrationRegistry()
      .defineShape({ shape: 'note', currentVersion: 4 })
      .register(s12)
      .register(s34);
    expect(codeOf(() => gap.migrate('note', { schemaVersion: 1, text: 'x' }))).toBe(
      MigrationErrorCodes.noPath,
    );
    expect(gap.migrate('note', { schemaVersion: 3, body: 'x', tags: [] }).applied).toEqual(['note@3->4']);
    const late = new MigrationRegistry()
      .defineShape({ shape: 'note', currentVersion: 4 })
      .register(s23)
      .register(s34);
    expect(codeOf(() => late.migrate('note', { schemaVersion: 1, text: 'x' }))).toBe(
      MigrationErrorCodes.noPath,
    );
    expect(codeOf(() => full().migrate('note', { schemaVersion: 1, body: 'wrong field' }))).toBe(
      MigrationErrorCodes.invalidInput,
    );
    const wrongOutput: MigrationStep = {
      ...s12,
      input: V1,
      output: V2,
      migrate: () => ({ schemaVersion: 2, text: 1 }),
    };
    const buggy = new MigrationRegistry()
      .defineShape({ shape: 'note', currentVersion: 2 })
      .register(wrongOutput);
    expect(codeOf(() => buggy.migrate('note', { schemaVersion: 1, text: 'x' }))).toBe(
      MigrationErrorCodes.invalidOutput,
    );
    const throwing = new MigrationRegistry().defineShape({ shape: 'note', currentVersion: 2 }).register({
      ...s12,
      migrate: () => {
        throw new Error('boom');
      },
    });
    expect(codeOf(() => throwing.migrate('note', { schemaVersion: 1, text: 'x' }))).toBe(
      MigrationErrorCodes.stepFailed,
    );
    expect(codeOf(() => full().migrate('note', { schemaVersion: 4, body: 'x', tags: [] }))).toBe(
      MigrationErrorCodes.invalidValue,
    );
    expect(codeOf(() => full().migrate('note', 'just text'))).toBe(MigrationErrorCodes.versionMissing);
    expect(codeOf(() => full().migrate('note', { schemaVersion: 1.5 }))).toBe(
      MigrationErrorCodes.versionMissing,
    );
  });

  it('never modifies the value it migrates', () => {
    const v = { schemaVersion: 2, text: 't', tags: ['a'] };
    const before = JSON.stringify(v);
    full().migrate('note', v);
    expect(JSON.stringify(v)).toBe(before);
  });

  it('refuses bad registrations', () => {
    const reg = () => new MigrationRegistry().defineShape({ shape: 'note', currentVersion: 3 });
    expect(codeOf(() => reg().register({ ...s12, to: 3 }))).toBe(MigrationErrorCodes.invalidRegistration);
    expect(codeOf(() => reg().register({ ...s12, from: 0, to: 1 }))).toBe(
      MigrationErrorCodes.invalidRegistration,
    );
    expect(codeOf(() => reg().register(s34))).toBe(MigrationErrorCodes.invalidRegistration);
    expect(codeOf(() => reg().register(s12).register(s12))).toBe(MigrationErrorCodes.invalidRegistration);
    expect(codeOf(() => reg().defineShape({ shape: 'note', currentVersion: 1 }))).toBe(
      MigrationErrorCodes.invalidRegistration,
    );
    expect(codeOf(() => new MigrationRegistry().defineShape({ shape: 'x', currentVersion: 0 }))).toBe(
      MigrationErrorCodes.invalidRegistration,
    );
    expect(codeOf(() => new MigrationRegistry().register(s12))).toBe(MigrationErrorCodes.unknownShape);
  });
});
