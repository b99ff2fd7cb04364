import { decodeJson, encodeJson } from './codec.js';
import { MAX_RECORD_BYTES } from '../../contract/store-records.js';
import type { MessageGroup, ModelDelta, StoredEvent } from '../../contract/store-records.js';
import { openEventsProgram } from './erasable-program.js';
import { insertOrCompare, rows } from './sql.js';
import type { SqlProgram } from './sql.js';

/** Default and largest page of `listEvents`. */
export const EVENT_PAGE_DEFAULT = 500;
export const EVENT_PAGE_MAX = 5000;

export function* appendMessageGroupProgram(
  runId: string,
  seq: number,
  messages: readonly unknown[],
): SqlProgram<void> {
  yield* insertOrCompare(
    'message_groups',
    { run_id: runId, seq, body: encodeJson(messages, MAX_RECORD_BYTES, 'message group') },
    ['run_id', 'seq'],
    `message group ${runId}#${seq}`,
  );
}

export function* listMessageGroupsProgram(
  runId: string,
  fromSeq: number,
  toSeq: number,
): SqlProgram<MessageGroup[]> {
  const found = yield* rows<{ seq: number; body: string }>(
    'SELECT seq, body FROM message_groups WHERE run_id = ? AND seq >= ? AND seq <= ? ORDER BY seq',
    [runId, fromSeq, toSeq],
  );
  return found.map((r) => ({ runId, seq: r.seq, messages: decodeJson<unknown[]>(r.body) }));
}

/**
 * One page of events after `afterSeq`: served by the (run_id, seq) primary key, with their erasable
 * values joined back (or shown withheld once erased: erasable-program.ts).
 */
export function* listEventsProgram(
  runId: string,
  afterSeq: number,
  limit: number,
): SqlProgram<StoredEvent[]> {
  const found = yield* rows<{ seq: number | string; body: string }>(
    'SELECT seq, body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    [runId, afterSeq, limit],
  );
  return yield* openEventsProgram(
    runId,
    found.map((r) => ({ seq: Number(r.seq), body: r.body })),
  );
}

export function* appendModelDeltasProgram(
  runId: string,
  callId: string,
  deltas: readonly ModelDelta[],
): SqlProgram<void> {
  // Ascending index order: concurrent appenders lock rows in the same order (no deadlock).
  const ordered = [...deltas].sort((a, b) => a.index - b.index);
  for (const delta of ordered) {
    yield* insertOrCompare(
      'model_deltas',
      {
        run_id: runId,
        call_id: callId,
        idx: delta.index,
        type: delta.type,
        body: encodeJson(delta, MAX_RECORD_BYTES, 'model delta'),
      },
      ['run_id', 'call_id', 'idx'],
      `model delta ${runId}/${callId}#${delta.index}`,
    );
  }
}

export function* listModelDeltasProgram(
  runId: string,
  callId: string,
  afterIndex: number,
): SqlProgram<ModelDelta[]> {
  const found = yield* rows<{ body: string }>(
    'SELECT body FROM model_deltas WHERE run_id = ? AND call_id = ? AND idx > ? ORDER BY idx',
    [runId, callId, afterIndex],
  );
  return found.map((r) => decodeJson<ModelDelta>(r.body));
}
