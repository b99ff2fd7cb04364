import type { z } from 'zod';
import { MigrationError, MigrationErrorCodes } from './migration-error.js';

/**
 * One migration step of a durable shape from version `from` to `from + 1`: a pure function with a
 * zod schema for its input and its output. Steps never read the clock, randomness or I/O.
 */
export interface MigrationStep<I = unknown, O = unknown> {
  readonly shape: string;
  readonly from: number;
  readonly to: number;
  readonly input: z.ZodType<I>;
  readonly output: z.ZodType<O>;
  readonly migrate: (value: I) => O;
  /** One line for operators: what the step changes. */
  readonly description: string;
}

/** A durable shape whose values carry a schema version. */
export interface ShapeDefinition {
  /** e.g. `run_state`, `event`, `signal`. */
  readonly shape: string;
  /** The version this build writes and reads. */
  readonly currentVersion: number;
  /** Schema of the current version; when given, every migrated or current value must satisfy it. */
  readonly current?: z.ZodType;
  /**
   * Version of a value with no `schemaVersion` field, when the shape's first version had none
   * (e.g. signal payloads). Without it, a value with no version fails with `migration.version_missing`.
   */
  readonly unversionedIs?: number;
}

/** The outcome of {@link MigrationRegistry.migrate}. */
export interface MigrationResult<T = unknown> {
  readonly value: T;
  readonly fromVersion: number;
  readonly toVersion: number;
  /** The steps applied, as `shape@N->N+1`, in order (empty when the value was current). */
  readonly applied: string[];
}

const stepName = (s: { shape: string; from: number; to: number }): string => `${s.shape}@${s.from}->${s.to}`;

function issuesOf(error: z.ZodError): string[] {
  return error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
}

/**
 * The migrations of the durable shapes, per shape from version N to N+1. Pure and deterministic
 * (workflow-sandbox safe). It never guesses: an unknown shape, a missing or newer version, a gap in
 * the chain or a value outside a step's schema each fail with a {@link MigrationError}, and the
 * input value is never modified.
 */
export class MigrationRegistry {
  private readonly shapes = new Map<string, ShapeDefinition>();
  private readonly steps = new Map<string, Map<number, MigrationStep>>();

  /**
   * Define a shape.
   * @throws MigrationError `migration.invalid_registration` for a duplicate shape or a version below 1.
   */
  defineShape(def: ShapeDefinition): this {
    if (this.shapes.has(def.shape))
      throw this.badRegistration(`shape ${def.shape} is already defined`, def.shape);
    if (!Number.isInteger(def.currentVersion) || def.currentVersion < 1) {
      throw this.badRegistration(`shape ${def.shape}: current version must be an integer >= 1`, def.shape);
    }
    this.shapes.set(def.shape, def);
    this.steps.set(def.shape, new Map());
    return this;
  }

  /**
   * Register a step of a defined shape.
   * @throws MigrationError `migration.unknown_shape` for an undefined shape;
   *   `migration.invalid_registration` unless `to === from + 1`, `from >= 1`, `to <= currentVersion`
   *   and no step from `from` exists yet.
   */
  register<I, O>(step: MigrationStep<I, O>): this {
    const def = this.shapeOf(step.shape);
    const name = stepName(step);
    if (!Number.isInteger(step.from) || step.from < 1 || step.to !== step.from + 1) {
      throw this.badRegistration(`step ${name} must go from an integer N >= 1 to N+1`, step.shape);
    }
    if (step.to > def.currentVersion) {
      throw this.badRegistration(
        `step ${name} goes beyond current version ${def.currentVersion}`,
        step.shape,
      );
    }
    const byFrom = this.steps.get(step.shape)!;
    if (byFrom.has(step.from))
      throw this.badRegistration(`a step from ${step.shape}@${step.from} is already registered`, step.shape);
    byFrom.set(step.from, step as unknown as MigrationStep);
    return this;
  }

  /** The current version of `shape`. @throws MigrationError `migration.unknown_shape`. */
  currentVersion(shape: string): number {
    return this.shapeOf(shape).currentVersion;
  }

  /** The version `value` carries (`schemaVersion`, a positive integer or its decimal string). */
  versionOf(shape: string, value: unknown): number {
    const def = this.shapeOf(shape);
    const raw =
      value !== null && typeof value === 'object'
        ? (value as Record<string, unknown>).schemaVersion
        : undefined;
    if (raw === undefined && def.unversionedIs !== undefined && value !== null && typeof value === 'object')
      return def.unversionedIs;
    if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1) return raw;
    if (typeof raw === 'string' && /^[1-9]\d{0,8}$/.test(raw)) return Number(raw);
    throw new MigrationError(
      MigrationErrorCodes.versionMissing,
      `${shape} value has no readable schemaVersion`,
      {
        shape,
        schemaVersion: typeof raw === 'string' || typeof raw === 'number' ? raw : typeof raw,
      },
    );
  }

  /**
   * Bring `value` of `shape` to the current version by applying the chain of steps, validating each
   * step's input and output. A value already at the current version is only validated (when the
   * shape has a current schema). Returns a new value; `value` itself is not changed.
   * @throws MigrationError `migration.unknown_shape`, `migration.version_missing`,
   *   `migration.version_too_new`, `migration.no_path`, `migration.invalid_input`,
   *   `migration.invalid_output`, `migration.step_failed`, `migration.invalid_value`.
   */
  migrate<T = unknown>(shape: string, value: unknown): MigrationResult<T> {
    const def = this.shapeOf(shape);
    const fromVersion = this.versionOf(shape, value);
    if (fromVersion > def.currentVersion) {
      throw new MigrationError(
        MigrationErrorCodes.versionTooNew,
        `${shape} version ${fromVersion} is newer than this build's version ${def.currentVersion}; refusing to read it`,
        { shape, version: fromVersion, currentVersion: def.currentVersion },
      );
    }
    const chain = this.chain(shape, fromVersion, def.currentVersion);
    let current: unknown = value;
    const applied: string[] = [];
    for (const step of chain) {
      const name = stepName(step);
      const input = step.input.safeParse(current);
      if (!input.success) {
        throw new MigrationError(
          MigrationErrorCodes.invalidInput,
          `${shape} value does not match the input of ${name}`,
          {
            shape,
            step: name,
            issues: issuesOf(input.error),
          },
        );
      }
      let produced: unknown;
      try {
        produced = step.migrate(input.data);
      } catch (err) {
        throw new MigrationError(
          MigrationErrorCodes.stepFailed,
          `${name} failed: ${(err as Error).message ?? String(err)}`,
          {
            shape,
            step: name,
          },
        );
      }
      const output = step.output.safeParse(produced);
      if (!output.success) {
        throw new MigrationError(
          MigrationErrorCodes.invalidOutput,
          `${name} produced a value outside its output schema`,
          {
            shape,
            step: name,
            issues: issuesOf(output.error),
          },
        );
      }
      current = output.data;
      applied.push(name);
    }
    if (def.current) {
      const final = def.current.safeParse(current);
      if (!final.success) {
        throw new MigrationError(
          MigrationErrorCodes.invalidValue,
          `${shape} value does not match version ${def.currentVersion}`,
          {
            shape,
            version: def.currentVersion,
            issues: issuesOf(final.error),
          },
        );
      }
      current = final.data;
    }
    return { value: current as T, fromVersion, toVersion: def.currentVersion, applied };
  }

  private chain(shape: string, from: number, to: number): MigrationStep[] {
    const byFrom = this.steps.get(shape)!;
    const out: MigrationStep[] = [];
    for (let v = from; v < to; v += 1) {
      const step = byFrom.get(v);
      if (!step) {
        throw new MigrationError(
          MigrationErrorCodes.noPath,
          `no migration registered from ${shape}@${v} (needed to reach ${to})`,
          {
            shape,
            version: from,
            missingFrom: v,
            currentVersion: to,
          },
        );
      }
      out.push(step);
    }
    return out;
  }

  private shapeOf(shape: string): ShapeDefinition {
    const def = this.shapes.get(shape);
    if (!def)
      throw new MigrationError(MigrationErrorCodes.unknownShape, `no durable shape named ${shape}`, {
        shape,
      });
    return def;
  }

  private badRegistration(message: string, shape: string): MigrationError {
    return new MigrationError(MigrationErrorCodes.invalidRegistration, message, { shape });
  }
}
