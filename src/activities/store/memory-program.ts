import type { MemoryEntry, MemoryScope } from '../../contract/memory.js';
import { decodeJson, encodeJson } from './codec.js';
import { MAX_RECORD_BYTES } from '../../contract/store-records.js';
import { exec, insertOrCompare, rows } from './sql.js';
import type { SqlProgram, SqlValue } from './sql.js';

/** Scope columns: a run without a tenant or user is stored under '' (so equality works everywhere). */
function scopeParams(scope: MemoryScope): SqlValue[] {
  return [scope.threadId, scope.tenantId ?? '', scope.userId ?? ''];
}
const SCOPE_WHERE = 'thread_id = ? AND tenant_id = ? AND user_id = ?';

/** Store one entry; the same entry again is a no-op, another under its id a `store.conflict`. */
export function* putMemoryProgram(entry: MemoryEntry): SqlProgram<'inserted' | 'identical'> {
  const [threadId, tenantId, userId] = scopeParams(entry.scope);
  return yield* insertOrCompare(
    'memory_entries',
    {
      entry_id: entry.entryId,
      thread_id: threadId ?? null,
      tenant_id: tenantId ?? null,
      user_id: userId ?? null,
      name: entry.name,
      created_at: entry.createdAt,
      expires_at: entry.expiresAt,
      body: encodeJson(entry, MAX_RECORD_BYTES, 'memory entry'),
    },
    ['entry_id'],
    `memory entry ${entry.entryId}`,
  );
}

/**
 * The scope's live entries at `now` (not forgotten, not expired), the newest per name, at most
 * `limit`, ordered by name. With `all`, forgotten and expired entries too, every version, oldest first.
 */
export function* listMemoryProgram(
  scope: MemoryScope,
  now: string,
  limit: number,
  all: boolean,
): SqlProgram<MemoryEntry[]> {
  const found = all
    ? yield* rows<{ body: string }>(
        `SELECT body FROM memory_entries WHERE ${SCOPE_WHERE} ORDER BY created_at, entry_id LIMIT ?`,
        [...scopeParams(scope), limit],
      )
    : yield* rows<{ body: string }>(
        `SELECT body FROM memory_entries WHERE ${SCOPE_WHERE} AND forgotten_at IS NULL
           AND (expires_at IS NULL OR expires_at > ?) ORDER BY name, created_at DESC, entry_id DESC`,
        [...scopeParams(scope), now],
      );
  const entries = found.map((r) => decodeJson<MemoryEntry>(r.body));
  if (all) return entries;
  const newest = new Map<string, MemoryEntry>();
  for (const e of entries) if (!newest.has(e.name)) newest.set(e.name, e);
  return [...newest.values()].slice(0, limit);
}

/** Mark the scope's entries (all, or those of one name) forgotten at `at`; the number marked. */
export function* forgetMemoryProgram(
  scope: MemoryScope,
  name: string | undefined,
  at: string,
): SqlProgram<number> {
  return yield* exec(
    `UPDATE memory_entries SET forgotten_at = ? WHERE ${SCOPE_WHERE} AND forgotten_at IS NULL${name !== undefined ? ' AND name = ?' : ''}`,
    [at, ...scopeParams(scope), ...(name !== undefined ? [name] : [])],
  );
}
