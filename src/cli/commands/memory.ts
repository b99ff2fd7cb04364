import { MemoryNameSchema, MemoryScopeSchema, type MemoryScope } from '../../contract/memory.js';
import { openCliStore } from '../connect.js';
import { EXIT, usageError } from '../errors.js';
import type { Output } from '../output.js';

export interface MemoryScopeOptions {
  readonly thread: string;
  readonly tenant?: string;
  readonly user?: string;
}

export interface MemoryListOptions extends MemoryScopeOptions {
  readonly all?: boolean;
}

export interface MemoryForgetOptions extends MemoryScopeOptions {
  readonly name?: string;
}

/** The scope the flags name. @throws CliError exit 2 for a bad value. */
function scopeOf(o: MemoryScopeOptions): MemoryScope {
  const parsed = MemoryScopeSchema.safeParse({
    threadId: o.thread,
    ...(o.tenant !== undefined ? { tenantId: o.tenant } : {}),
    ...(o.user !== undefined ? { userId: o.user } : {}),
  });
  if (!parsed.success)
    throw usageError(
      `bad memory scope: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data;
}

/**
 * `harness memory list --thread <id> [--tenant] [--user] [--all]`: a thread's memory in the evidence
 * store (`HARNESS_STORE_URL`): what its next run would recall (the newest live entry per name), or
 * with `--all` every entry, forgotten and expired ones too. Needs no Temporal server.
 */
export async function memoryListCommand(o: MemoryListOptions, out: Output): Promise<number> {
  const scope = scopeOf(o);
  const store = await openCliStore();
  try {
    const entries = await store.listMemory(scope, {
      now: new Date().toISOString(),
      all: o.all ?? false,
      limit: 5000,
    });
    for (const e of entries) {
      out.data(e);
      out.line(
        `${e.name}=${String(e.value)}  from ${e.provenance.runId} (${e.provenance.evidenceArtifactId})  expires ${e.expiresAt ?? 'never'}`,
      );
    }
    if (entries.length === 0) out.progress(`no memory for thread ${scope.threadId}`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/**
 * `harness memory forget --thread <id> [--tenant] [--user] [--name <fact>]`: mark the thread's entries
 * (or those of one fact) forgotten; later runs no longer recall them. The entries stay for audit.
 */
export async function memoryForgetCommand(o: MemoryForgetOptions, out: Output): Promise<number> {
  const scope = scopeOf(o);
  if (o.name !== undefined && !MemoryNameSchema.safeParse(o.name).success)
    throw usageError(`--name must be a lowercase fact name like order.owner_verified (got "${o.name}")`);
  const store = await openCliStore();
  try {
    const forgotten = await store.forgetMemory(scope, {
      ...(o.name !== undefined ? { name: o.name } : {}),
      at: new Date().toISOString(),
    });
    out.data({ threadId: scope.threadId, forgotten });
    out.line(`forgot ${forgotten} entr${forgotten === 1 ? 'y' : 'ies'} of thread ${scope.threadId}`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
