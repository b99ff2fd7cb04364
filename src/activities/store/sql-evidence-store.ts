import { z } from 'zod';
import { SqlErasure } from './sql-erasure.js';
import { SqlRetrieval } from './sql-retrieval.js';
import type { Artifact } from '../../contract/artifact.js';
import { artifactRow, getArtifactProgram, listArtifactsProgram, putArtifactRow } from './artifact-program.js';
import { blobRefOfText, getBlobProgram, putBlobProgram } from './blob-program.js';
import { encodeJson, parseRecord } from './codec.js';
import { StoreError } from './errors.js';
import type { EvidenceStore, RunListOptions } from '../../contract/evidence-store.js';
import {
  getInvocationProgram,
  listInvocationsProgram,
  recordIntentProgram,
  recordResultProgram,
} from './invocation-program.js';
import {
  CallIdSchema,
  InvocationIntentSchema,
  InvocationResultSchema,
  MAX_BLOB_BYTES,
  MAX_SEQ,
  ModelArtifactInputSchema,
  RunIdSchema,
  SeqSchema,
  StoredEventSchema,
} from '../../contract/store-records.js';
import type {
  BlobRef,
  InvocationIntent,
  InvocationRecord,
  InvocationResolution,
  InvocationResult,
  MessageGroup,
  ModelArtifactInput,
  ModelDelta,
  StoredArtifact,
  StoredEvent,
} from '../../contract/store-records.js';
import type { SqlExecutor } from './sql.js';
import {
  appendMessageGroupProgram,
  appendModelDeltasProgram,
  EVENT_PAGE_DEFAULT,
  EVENT_PAGE_MAX,
  listEventsProgram,
  listMessageGroupsProgram,
  listModelDeltasProgram,
} from './stream-program.js';
import { getRunProgram, listRunsProgram } from './run-program.js';
import { appendEventsProgram } from './event-append-program.js';
import { chainStartProgram, listEventChainProgram, type ChainPage } from './chain-program.js';
import { validDeltas } from './model-delta-validation.js';
import { getFailureSampleProgram, listFailureSamplesProgram } from './failure-sample-program.js';
import type { FailureReason, FailureSampleRecord } from '../../contract/failure-sample-record.js';
import { forgetMemoryProgram, listMemoryProgram, putMemoryProgram } from './memory-program.js';
import {
  MAX_RECALLED_ENTRIES,
  MemoryEntrySchema,
  MemoryScopeSchema,
  type MemoryEntry,
  type MemoryScope,
} from '../../contract/memory.js';
import type { RunRecord } from '../../contract/run-record.js';
import type { ErasableRule } from '../../contract/erasable-rule.js';
import {
  EventPageSchema,
  FailureListSchema,
  MemoryForgetSchema,
  MemoryListSchema,
  RunListSchema,
  SeqRangeSchema,
} from './store-query-schemas.js';

/** Events checked before any I/O, as appendEvents checks them. */
function validEvents(events: readonly StoredEvent[]): StoredEvent[] {
  return events.map((e) => parseRecord(StoredEventSchema, e, 'event'));
}

/**
 * The {@link EvidenceStore} over a {@link SqlExecutor}: one implementation of the semantics for both
 * backends. Inputs are validated here, before any I/O; each write is one transaction.
 */
export class SqlEvidenceStore implements EvidenceStore {
  /** The retrieval port on this store's database (docs/context.md, "Retrieval"). */
  retrieval(): SqlRetrieval {
    return new SqlRetrieval(this.executor);
  }
  /** The erasure port on this store's database (sql-erasure.ts). */
  erasure(): SqlErasure {
    return new SqlErasure(this.executor);
  }

  readonly backend: 'sqlite' | 'postgres';

  /** `erasable`: the app's declared erasable fields, applied to every event this store writes. */
  constructor(
    private readonly executor: SqlExecutor,
    private readonly erasable?: ErasableRule,
  ) {
    this.backend = executor.dialect;
  }

  /** This store (the same database and connections) writing events under `rule` (composeWorker). */
  withErasable(rule: ErasableRule): SqlEvidenceStore {
    return new SqlEvidenceStore(this.executor, rule);
  }

  async recordIntent(intent: InvocationIntent): Promise<void> {
    await this.recordIntentWithEvents(intent, []);
  }

  async recordIntentWithEvents(
    intent: InvocationIntent,
    events: readonly StoredEvent[],
    o: { readonly provisional?: boolean } = {},
  ): Promise<void> {
    const valid = parseRecord(InvocationIntentSchema, intent, 'invocation intent');
    const stored = validEvents(events);
    const append = { lastFlush: o.provisional === true, erasable: this.erasable };
    await this.executor.transaction(function* () {
      if (stored.length > 0) yield* appendEventsProgram(stored, append);
      yield* recordIntentProgram(valid);
    });
  }

  async recordResult(result: InvocationResult, artifacts: readonly Artifact[]): Promise<void> {
    const valid = parseRecord(InvocationResultSchema, result, 'invocation result');
    const listed = new Set(valid.artifactIds);
    const placement = {
      runId: valid.runId,
      seq: valid.seq,
      attempt: valid.attempt,
      recordedAt: valid.recordedAt,
    };
    const rows = artifacts.map((a) => artifactRow(a, placement));
    const ids = new Set<string>();
    for (const row of rows) {
      if (!listed.has(row.id)) {
        throw new StoreError(
          'store.invalid_record',
          `artifact ${row.id} is not listed in the result's artifactIds`,
          { id: row.id },
        );
      }
      if (ids.has(row.id))
        throw new StoreError('store.invalid_record', `artifact id ${row.id} is given twice`, { id: row.id });
      ids.add(row.id);
    }
    await this.executor.transaction(() => recordResultProgram(valid, rows));
  }

  async recordResolution(
    resolution: InvocationResolution,
    artifacts: readonly Artifact[] = [],
  ): Promise<void> {
    if ((resolution.source as string) === 'executor' || resolution.evidence === undefined) {
      throw new StoreError(
        'store.invalid_record',
        'a resolution comes from a reconciler or an operator and carries evidence',
        {
          source: resolution.source,
        },
      );
    }
    await this.recordResult(resolution, artifacts);
  }

  async getInvocation(runId: string, seq: number): Promise<InvocationRecord | undefined> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    const s = parseRecord(SeqSchema, seq, 'seq');
    return this.executor.snapshot(() => getInvocationProgram(id, s));
  }

  async listInvocations(runId: string): Promise<InvocationRecord[]> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    return this.executor.snapshot(() => listInvocationsProgram(id));
  }

  async appendMessageGroup(runId: string, seq: number, messages: readonly unknown[]): Promise<void> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    const s = parseRecord(SeqSchema, seq, 'seq');
    const list = parseRecord(z.array(z.unknown()), messages, 'message group');
    await this.executor.transaction(() => appendMessageGroupProgram(id, s, list));
  }

  async appendMessageGroupWithDeltas(
    runId: string,
    seq: number,
    messages: readonly unknown[],
    callId: string,
    deltas: readonly ModelDelta[],
  ): Promise<void> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    const s = parseRecord(SeqSchema, seq, 'seq');
    const list = parseRecord(z.array(z.unknown()), messages, 'message group');
    const valid = validDeltas(callId, deltas);
    await this.executor.transaction(function* () {
      if (valid.list.length > 0) yield* appendModelDeltasProgram(id, valid.call, valid.list);
      yield* appendMessageGroupProgram(id, s, list);
    });
  }

  async listMessageGroups(
    runId: string,
    opts: { fromSeq?: number; toSeq?: number } = {},
  ): Promise<MessageGroup[]> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    const range = parseRecord(SeqRangeSchema, opts, 'message group range');
    return this.executor.snapshot(() =>
      listMessageGroupsProgram(id, range.fromSeq ?? 0, range.toSeq ?? MAX_SEQ),
    );
  }

  async putArtifact(input: ModelArtifactInput): Promise<StoredArtifact> {
    const valid = parseRecord(ModelArtifactInputSchema, input, 'artifact input');
    const row = artifactRow(valid.artifact, {
      runId: valid.runId,
      seq: valid.seq ?? null,
      attempt: null,
      recordedAt: valid.recordedAt,
    });
    if (row.columns.provenance !== 'model') {
      throw new StoreError(
        'store.invalid_record',
        'putArtifact stores model artifacts only; observed and verified artifacts come with a tool result',
        {
          id: row.id,
          provenance: row.columns.provenance,
        },
      );
    }
    return this.executor.transaction(function* () {
      yield* putArtifactRow(row);
      const stored = yield* getArtifactProgram(row.id);
      if (stored === undefined)
        throw new StoreError('store.backend_error', `artifact ${row.id} vanished after its write`);
      return stored;
    });
  }

  async getArtifact(id: string): Promise<StoredArtifact | undefined> {
    const valid = parseRecord(RunIdSchema, id, 'artifact id');
    return this.executor.snapshot(() => getArtifactProgram(valid));
  }

  async listArtifacts(runId: string): Promise<StoredArtifact[]> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    return this.executor.snapshot(() => listArtifactsProgram(id));
  }

  async appendEvent(event: StoredEvent): Promise<void> {
    const valid = parseRecord(StoredEventSchema, event, 'event');
    await this.executor.transaction(() => appendEventsProgram([valid], { erasable: this.erasable }));
  }

  async appendEvents(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    const valid = validEvents(events);
    await this.executor.transaction(() => appendEventsProgram(valid, { erasable: this.erasable }));
  }

  async appendLastFlush(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    const valid = validEvents(events);
    await this.executor.transaction(() =>
      appendEventsProgram(valid, { lastFlush: true, erasable: this.erasable }),
    );
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    return this.executor.snapshot(() => getRunProgram(id));
  }

  async listRuns(opts: RunListOptions = {}): Promise<RunRecord[]> {
    const o = parseRecord(RunListSchema, opts, 'run list');
    const filter = {
      ...(o.status !== undefined ? { status: o.status } : {}),
      ...(o.tenantId !== undefined ? { tenantId: o.tenantId } : {}),
      ...(o.createdFrom !== undefined ? { createdFrom: new Date(o.createdFrom).toISOString() } : {}),
      ...(o.createdBefore !== undefined ? { createdBefore: new Date(o.createdBefore).toISOString() } : {}),
    };
    return this.executor.snapshot(() => listRunsProgram(filter, Math.min(o.limit ?? 100, EVENT_PAGE_MAX)));
  }

  async getFailureSample(runId: string): Promise<FailureSampleRecord | undefined> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    return this.executor.snapshot(() => getFailureSampleProgram(id));
  }

  async listFailureSamples(
    opts: { since?: string; reason?: FailureReason; tenantId?: string; limit?: number } = {},
  ): Promise<FailureSampleRecord[]> {
    const o = parseRecord(FailureListSchema, opts, 'failure sample list');
    const filter = {
      // Stored ends are ISO 8601 in UTC (the workflow clock): compare like with like.
      ...(o.since !== undefined ? { since: new Date(o.since).toISOString() } : {}),
      ...(o.reason !== undefined ? { reason: o.reason } : {}),
      ...(o.tenantId !== undefined ? { tenantId: o.tenantId } : {}),
    };
    return this.executor.snapshot(() =>
      listFailureSamplesProgram(filter, Math.min(o.limit ?? 100, EVENT_PAGE_MAX)),
    );
  }

  async listEvents(runId: string, opts: { afterSeq?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    const page = parseRecord(EventPageSchema, opts, 'event page');
    const limit = Math.min(page.limit ?? EVENT_PAGE_DEFAULT, EVENT_PAGE_MAX);
    return this.executor.snapshot(() => listEventsProgram(id, page.afterSeq ?? -1, limit));
  }

  /** A page of the run's events with their exact bytes and chain links (event-chain-reader.ts), and when the chain began. */
  async listEventChain(runId: string, afterSeq: number, limit: number): Promise<ChainPage> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    return this.executor.snapshot(function* () {
      return {
        rows: yield* listEventChainProgram(id, afterSeq, limit),
        chainStart: yield* chainStartProgram(),
      };
    });
  }

  async appendModelDeltas(runId: string, callId: string, deltas: readonly ModelDelta[]): Promise<void> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    const { call, list } = validDeltas(callId, deltas);
    await this.executor.transaction(() => appendModelDeltasProgram(id, call, list));
  }

  async listModelDeltas(runId: string, callId: string, afterIndex?: number): Promise<ModelDelta[]> {
    const id = parseRecord(RunIdSchema, runId, 'run id');
    const call = parseRecord(CallIdSchema, callId, 'call id');
    const after = afterIndex === undefined ? -1 : parseRecord(SeqSchema, afterIndex, 'afterIndex');
    return this.executor.snapshot(() => listModelDeltasProgram(id, call, after));
  }

  async putBlob(data: unknown): Promise<BlobRef> {
    const text = encodeJson(data, MAX_BLOB_BYTES, 'blob');
    return this.executor.transaction(() => putBlobProgram(text));
  }

  async putIndexedBlobs(
    items: readonly unknown[],
    index: (refs: readonly BlobRef[]) => unknown,
    events: readonly StoredEvent[],
    o: { readonly provisional?: boolean } = {},
  ): Promise<BlobRef> {
    const texts = items.map((d) => encodeJson(d, MAX_BLOB_BYTES, 'blob'));
    const refs = texts.map(blobRefOfText);
    const indexText = encodeJson(index(refs), MAX_BLOB_BYTES, 'blob');
    const stored = validEvents(events);
    const erasable = this.erasable;
    return this.executor.transaction(function* () {
      if (stored.length > 0)
        yield* appendEventsProgram(stored, { lastFlush: o.provisional === true, erasable });
      for (let i = 0; i < texts.length; i++) yield* putBlobProgram(texts[i]!, refs[i]);
      return yield* putBlobProgram(indexText);
    });
  }

  async getBlob(ref: string): Promise<unknown> {
    return this.executor.snapshot(() => getBlobProgram(ref));
  }

  async putMemory(entry: MemoryEntry): Promise<void> {
    const valid = parseRecord(MemoryEntrySchema, entry, 'memory entry');
    await this.executor.transaction(() => putMemoryProgram(valid));
  }

  async listMemory(
    scope: MemoryScope,
    opts: { now: string; limit?: number; all?: boolean },
  ): Promise<MemoryEntry[]> {
    const s = parseRecord(MemoryScopeSchema, scope, 'memory scope');
    const o = parseRecord(MemoryListSchema, opts, 'memory list');
    const limit = Math.min(o.limit ?? MAX_RECALLED_ENTRIES, EVENT_PAGE_MAX);
    return this.executor.snapshot(() => listMemoryProgram(s, o.now, limit, o.all ?? false));
  }

  async forgetMemory(scope: MemoryScope, opts: { name?: string; at: string }): Promise<number> {
    const s = parseRecord(MemoryScopeSchema, scope, 'memory scope');
    const o = parseRecord(MemoryForgetSchema, opts, 'memory forget');
    return this.executor.transaction(() => forgetMemoryProgram(s, o.name, o.at));
  }

  close(): Promise<void> {
    return this.executor.close();
  }
}
