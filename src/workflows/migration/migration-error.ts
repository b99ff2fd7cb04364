import { HarnessError } from '../../contract/errors.js';

/** The stable codes of {@link MigrationError}. */
export const MigrationErrorCodes = {
  /** No shape of that name is defined in the registry. */
  unknownShape: 'migration.unknown_shape',
  /** The value carries no readable schema version (and the shape declares no version for unversioned values). */
  versionMissing: 'migration.version_missing',
  /** The value's version is newer than the shape's current version: written by a newer build. Fails closed. */
  versionTooNew: 'migration.version_too_new',
  /** No registered chain of steps leads from the value's version to the current version. */
  noPath: 'migration.no_path',
  /** The value does not satisfy the input schema of the step for its version. */
  invalidInput: 'migration.invalid_input',
  /** A step produced a value outside its own output schema (a bug in the step). */
  invalidOutput: 'migration.invalid_output',
  /** A value at the current version does not satisfy the shape's current schema. */
  invalidValue: 'migration.invalid_value',
  /** A step threw. */
  stepFailed: 'migration.step_failed',
  /** A shape or step registration is unusable (duplicate, not N to N+1, beyond the current version). */
  invalidRegistration: 'migration.invalid_registration',
} as const;

export type MigrationErrorCode = (typeof MigrationErrorCodes)[keyof typeof MigrationErrorCodes];

/** A migration that cannot be done safely. The value is never partially migrated or guessed at. */
export class MigrationError extends HarnessError {
  declare readonly code: MigrationErrorCode;

  constructor(code: MigrationErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
