import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ModelError } from '../../src/activities/model/errors.js';

/** A temporary folder of model routes files (`HARNESS_MODEL_ROUTES`) for one test file. */
export interface RoutesFolder {
  /** The folder, created when {@link routesFolder} is called; never removed (it is under the OS tmpdir). */
  readonly dir: string;
  /**
   * Writes `text` as is into a new file `routes-<n>.<ext>` of the folder (`n` counts from 1 per
   * folder) and returns its path. @throws what `writeFileSync` throws.
   */
  readonly fileWith: (text: string, ext?: string) => string;
}

/** Creates a routes folder in the OS tmpdir, named `prefix…`. @throws what `mkdtempSync` throws. */
export function routesFolder(prefix: string): RoutesFolder {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return {
    dir,
    fileWith: (text: string, ext = 'json'): string => {
      const path = join(dir, `routes-${++n}.${ext}`);
      writeFileSync(path, text);
      return path;
    },
  };
}

/**
 * Calls `fn` and returns the {@link ModelError} it throws (how loading a routes file refuses). Fails
 * the test when `fn` throws something else, or returns.
 */
export function modelErrorOf(fn: () => unknown): ModelError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ModelError);
    return err as ModelError;
  }
  throw new Error('expected an error');
}
