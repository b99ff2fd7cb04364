import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { HarnessError } from '../../contract/errors.js';
import { FAILURE_SAMPLE_FILES, FailureSampleSchema, type FailureSample } from './failure-sample.js';

type History = temporal.api.history.v1.IHistory;

/** A failure sample folder that cannot be read: a file is missing, not JSON, or not a sample. */
export class FailureSampleFolderError extends HarnessError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('failures.sample_invalid', message, details);
  }
}

/** True when `path` is a folder holding a failure sample (`sample.json`). */
export function isFailureSampleFolder(path: string): boolean {
  return (
    existsSync(path) && statSync(path).isDirectory() && existsSync(join(path, FAILURE_SAMPLE_FILES.sample))
  );
}

/**
 * Write a sample to `dir` (created when missing): `sample.json` and `history.json` (the JSON of
 * `temporal workflow show --output json`, the input of `harness replay`). Existing files are replaced.
 * @returns the folder. @throws the file system's errors.
 */
export function writeFailureSampleFolder(dir: string, sample: FailureSample, history: History): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, FAILURE_SAMPLE_FILES.sample), `${JSON.stringify(sample, null, 1)}\n`);
  writeFileSync(
    join(dir, FAILURE_SAMPLE_FILES.history),
    `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`,
  );
  return dir;
}

function readJson(dir: string, name: string): unknown {
  const file = join(dir, name);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new FailureSampleFolderError(`${file}: ${(err as Error).message}`, { dir, file: name });
  }
}

/**
 * Read a sample folder written by {@link writeFailureSampleFolder}.
 * @throws FailureSampleFolderError naming the file that is missing or invalid.
 */
export function readFailureSampleFolder(dir: string): { sample: FailureSample; history: History } {
  const parsed = FailureSampleSchema.safeParse(readJson(dir, FAILURE_SAMPLE_FILES.sample));
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new FailureSampleFolderError(
      `${join(dir, FAILURE_SAMPLE_FILES.sample)} is not a failure sample: ${issues.join('; ')}`,
      { dir, issues },
    );
  }
  let history: History;
  try {
    history = historyFromJSON(readJson(dir, FAILURE_SAMPLE_FILES.history));
  } catch (err) {
    if (err instanceof FailureSampleFolderError) throw err;
    throw new FailureSampleFolderError(
      `${join(dir, FAILURE_SAMPLE_FILES.history)}: ${(err as Error).message}`,
      {
        dir,
      },
    );
  }
  return { sample: parsed.data, history };
}
