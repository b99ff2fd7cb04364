import { canonicalJson } from '../../contract/canonical-json.js';
import { decodeJson, encodeJson, withoutRecordedAt } from './codec.js';
import { StoreError } from './errors.js';
import type { ArtifactRow } from './artifact-program.js';
import { existingArtifactIds, putArtifactRow } from './artifact-program.js';
import { MAX_INTENT_ARGS_BYTES, MAX_RECORD_BYTES } from '../../contract/store-records.js';
import type { InvocationIntent, InvocationRecord, InvocationResult } from '../../contract/store-records.js';
import { insertOrCompare, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** What every attempt of one invocation shares: a seq is never reused for another call. */
function callIdentity(intent: Omit<InvocationIntent, 'recordedAt'>): string {
  const { tool, version, effect, argsDigest, args, idempotencyKey } = intent;
  return canonicalJson({ tool, version, effect, argsDigest, args, idempotencyKey });
}

/**
 * Record an intent; identical repeats are no-ops. A new attempt must repeat the call of the earlier
 * attempts of its seq (same tool, version, effect, args and idempotency key).
 */
export function* recordIntentProgram(intent: InvocationIntent): SqlProgram<void> {
  encodeJson(intent.args, MAX_INTENT_ARGS_BYTES, 'intent args');
  const earlier = yield* rows<{ body: string }>(
    'SELECT body FROM invocation_intents WHERE run_id = ? AND seq = ? AND attempt <> ? ORDER BY attempt LIMIT 1',
    [intent.runId, intent.seq, intent.attempt],
  );
  const first = earlier[0];
  if (first !== undefined && callIdentity(decodeJson(first.body)) !== callIdentity(intent)) {
    throw new StoreError(
      'store.conflict',
      `seq ${intent.seq} of run ${intent.runId} already belongs to another call; a sequence number is never reused`,
      { runId: intent.runId, seq: intent.seq, attempt: intent.attempt },
    );
  }
  yield* insertOrCompare(
    'invocation_intents',
    {
      run_id: intent.runId,
      seq: intent.seq,
      attempt: intent.attempt,
      tool: intent.tool,
      tool_version: intent.version,
      effect: intent.effect,
      idempotency_key: intent.idempotencyKey,
      body: encodeJson(withoutRecordedAt(intent), MAX_RECORD_BYTES, 'intent'),
      recorded_at: intent.recordedAt,
    },
    ['run_id', 'seq', 'attempt'],
    `intent ${intent.runId}#${intent.seq}.${intent.attempt}`,
  );
}

/**
 * Record a result and its artifacts. The result row is written first, then every artifact, then the
 * listed ids are checked; any failure rolls the whole transaction back.
 */
export function* recordResultProgram(
  result: InvocationResult,
  artifacts: readonly ArtifactRow[],
): SqlProgram<void> {
  const label = `${result.runId}#${result.seq}.${result.attempt}`;
  const intent = yield* rows<{ n: number }>(
    'SELECT 1 AS n FROM invocation_intents WHERE run_id = ? AND seq = ? AND attempt = ?',
    [result.runId, result.seq, result.attempt],
  );
  if (intent.length === 0) {
    throw new StoreError(
      'store.no_intent',
      `no intent recorded for invocation ${label}; record the intent first`,
      {
        runId: result.runId,
        seq: result.seq,
        attempt: result.attempt,
      },
    );
  }
  yield* insertOrCompare(
    'invocation_results',
    {
      run_id: result.runId,
      seq: result.seq,
      attempt: result.attempt,
      status: result.status,
      source: result.source,
      body: encodeJson(withoutRecordedAt(result), MAX_RECORD_BYTES, 'result'),
      recorded_at: result.recordedAt,
    },
    ['run_id', 'seq', 'attempt'],
    `result of invocation ${label}`,
  );
  for (const row of artifacts) yield* putArtifactRow(row);
  const given = new Set(artifacts.map((a) => a.id));
  const others = result.artifactIds.filter((id) => !given.has(id));
  const stored = yield* existingArtifactIds(others);
  const missing = others.filter((id) => !stored.has(id));
  if (missing.length > 0) {
    throw new StoreError('store.invalid_record', `result of invocation ${label} lists unknown artifact ids`, {
      missing,
    });
  }
}

interface IntentRow {
  seq: number;
  body: string;
  recorded_at: string;
}

function* loadInvocations(runId: string, seq?: number): SqlProgram<InvocationRecord[]> {
  const filter = seq === undefined ? 'run_id = ?' : 'run_id = ? AND seq = ?';
  const params = seq === undefined ? [runId] : [runId, seq];
  const intentRows = yield* rows<IntentRow>(
    `SELECT seq, body, recorded_at FROM invocation_intents WHERE ${filter} ORDER BY seq, attempt`,
    params,
  );
  const resultRows = yield* rows<IntentRow>(
    `SELECT seq, body, recorded_at FROM invocation_results WHERE ${filter} ORDER BY seq, attempt`,
    params,
  );
  const bySeq = new Map<number, { intents: InvocationIntent[]; results: InvocationResult[] }>();
  for (const row of intentRows) {
    const entry = bySeq.get(row.seq) ?? { intents: [], results: [] };
    entry.intents.push({
      ...decodeJson<Omit<InvocationIntent, 'recordedAt'>>(row.body),
      recordedAt: row.recorded_at,
    });
    bySeq.set(row.seq, entry);
  }
  for (const row of resultRows) {
    bySeq.get(row.seq)?.results.push({
      ...decodeJson<Omit<InvocationResult, 'recordedAt'>>(row.body),
      recordedAt: row.recorded_at,
    });
  }
  return [...bySeq.entries()].map(([s, { intents, results }]) => {
    const latest = intents[intents.length - 1]?.attempt;
    const result = results.find((r) => r.attempt === latest);
    return result === undefined
      ? { runId, seq: s, intents, results }
      : { runId, seq: s, intents, results, result };
  });
}

export function* getInvocationProgram(runId: string, seq: number): SqlProgram<InvocationRecord | undefined> {
  const found = yield* loadInvocations(runId, seq);
  return found[0];
}

export function* listInvocationsProgram(runId: string): SqlProgram<InvocationRecord[]> {
  return yield* loadInvocations(runId);
}
