import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ArtifactSchema } from '../../src/contract/index.js';
import type { ToolExecution } from '../../src/index.js';
import type { ResolvedCodingConfig } from './coding-config.js';
import { gitOk, type GitOptions } from './git-runner.js';

/**
 * Pipeline records: what `pipeline.run` did under one idempotency key, kept in the working
 * repository's git directory (`<git-dir>/harness/pipeline/`), one file pair per key, named by the
 * sha-256 of the key:
 * - `<hash>.started.json`, created exclusively before the test command starts;
 * - `<hash>.json`, the complete tool execution, written (temp file + rename) when it finished.
 *
 * Records are found by the exact key only: a record of another run, or of an earlier call of this
 * run, for the same branch and commit is never this call's record. Nothing removes them; they are
 * small, and an operator may delete a finished run's files.
 */
export type PipelineRecord =
  | { readonly state: 'none' }
  | { readonly state: 'started' }
  | { readonly state: 'finished'; readonly execution: ToolExecution };

const StoredSchema = z.object({
  key: z.string(),
  execution: z.object({
    output: z.record(z.string(), z.unknown()),
    artifacts: z.array(ArtifactSchema),
  }),
});

function fileBase(dir: string, key: string): string {
  return join(dir, createHash('sha256').update(key, 'utf8').digest('hex'));
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * The records directory of the configured working repository (created when missing).
 * @throws CodingExampleError `coding.git_failed` when the repository's git directory is unknown;
 *   the `mkdir` error when it cannot be created.
 */
export async function pipelineRecordsDir(config: ResolvedCodingConfig, options: GitOptions): Promise<string> {
  const gitDir = (await gitOk(config.repoDir, ['rev-parse', '--absolute-git-dir'], options)).trim();
  const dir = join(gitDir, 'harness', 'pipeline');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * The record of `key`: finished (with its execution), started only, or none.
 * @throws Error when a finished record exists but does not parse or names another key (a person
 *   must look at it); the read error other than a missing file.
 */
export async function readPipelineRecord(dir: string, key: string): Promise<PipelineRecord> {
  const base = fileBase(dir, key);
  try {
    const stored = StoredSchema.parse(JSON.parse(await readFile(`${base}.json`, 'utf8')));
    if (stored.key !== key) throw new Error(`pipeline record ${base}.json belongs to another key`);
    return { state: 'finished', execution: stored.execution };
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  try {
    await readFile(`${base}.started.json`, 'utf8');
    return { state: 'started' };
  } catch (err) {
    if (isMissing(err)) return { state: 'none' };
    throw err;
  }
}

/**
 * Record that the pipeline of `key` is about to run (exclusive create).
 * @throws Error with code `EEXIST` when it was started before under this key; other write errors.
 */
export async function markPipelineStarted(
  dir: string,
  key: string,
  detail: Readonly<Record<string, unknown>>,
): Promise<void> {
  await writeFile(`${fileBase(dir, key)}.started.json`, JSON.stringify({ key, ...detail }), {
    flag: 'wx',
    mode: 0o600,
  });
}

/**
 * Record the finished execution of `key` (atomically: a reader sees all of it or none).
 * @throws the write or rename error.
 */
export async function recordPipelineResult(
  dir: string,
  key: string,
  execution: ToolExecution,
): Promise<void> {
  const base = fileBase(dir, key);
  await writeFile(`${base}.json.tmp`, JSON.stringify({ key, execution }), { mode: 0o600 });
  await rename(`${base}.json.tmp`, `${base}.json`);
}
