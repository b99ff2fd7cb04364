import type { Artifact } from '../../contract/artifact.js';
import { ArtifactSchema } from '../../contract/artifact.js';
import { sha256Digest } from '../digest.js';
import { decodeJson, encodeJson, parseRecord } from './codec.js';
import { MAX_RECORD_BYTES } from '../../contract/store-records.js';
import type { StoredArtifact } from '../../contract/store-records.js';
import { insertOrCompare, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** Where an artifact belongs; recorded with it. */
export interface ArtifactPlacement {
  readonly runId: string;
  readonly seq: number | null;
  readonly attempt: number | null;
  readonly recordedAt: string;
}

/** An artifact validated and encoded for its row. */
export interface ArtifactRow {
  readonly id: string;
  readonly columns: Record<string, string | number | null>;
}

/**
 * Validate an artifact and encode its row. The digest is the `sha256:` digest of the canonical JSON
 * of its data, or the reference's digest when the data is stored by reference.
 * @throws `store.invalid_record` when the artifact fails `ArtifactSchema`.
 */
export function artifactRow(input: unknown, placement: ArtifactPlacement): ArtifactRow {
  const artifact: Artifact = parseRecord(ArtifactSchema, input, 'artifact');
  const digest =
    artifact.data !== undefined || artifact.ref === undefined
      ? sha256Digest(artifact.data ?? null)
      : artifact.ref.digest;
  const identity = {
    ...artifact,
    runId: placement.runId,
    seq: placement.seq,
    attempt: placement.attempt,
    digest,
  };
  return {
    id: artifact.id,
    columns: {
      id: artifact.id,
      run_id: placement.runId,
      seq: placement.seq,
      attempt: placement.attempt,
      type: artifact.type,
      provenance: artifact.provenance,
      digest,
      body: encodeJson(identity, MAX_RECORD_BYTES, `artifact ${artifact.id}`),
      recorded_at: placement.recordedAt,
    },
  };
}

/** Insert an artifact row; an identical artifact under the id is a no-op. */
export function* putArtifactRow(row: ArtifactRow): SqlProgram<void> {
  yield* insertOrCompare('artifacts', row.columns, ['id'], `artifact ${row.id}`);
}

interface StoredArtifactRow {
  body: string;
  recorded_at: string;
}

function toStoredArtifact(row: StoredArtifactRow): StoredArtifact {
  return { ...decodeJson<Omit<StoredArtifact, 'recordedAt'>>(row.body), recordedAt: row.recorded_at };
}

/** Ids among `ids` that have a stored artifact. */
export function* existingArtifactIds(ids: readonly string[]): SqlProgram<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = yield* rows<{ id: string }>(
    `SELECT id FROM artifacts WHERE id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return new Set(found.map((r) => r.id));
}

export function* getArtifactProgram(id: string): SqlProgram<StoredArtifact | undefined> {
  const found = yield* rows<StoredArtifactRow>('SELECT body, recorded_at FROM artifacts WHERE id = ?', [id]);
  return found[0] === undefined ? undefined : toStoredArtifact(found[0]);
}

export function* listArtifactsProgram(runId: string): SqlProgram<StoredArtifact[]> {
  const found = yield* rows<StoredArtifactRow>(
    'SELECT body, recorded_at FROM artifacts WHERE run_id = ? ORDER BY seq IS NOT NULL, seq, id',
    [runId],
  );
  return found.map(toStoredArtifact);
}
