import type { MemoryEntry, MemoryScope } from './memory.js';
import type { Artifact } from './artifact.js';
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
} from './store-records.js';
import type { FailureReason, FailureSampleRecord } from './failure-sample-record.js';
import type { RunRecord } from './run-record.js';

/**
 * The evidence store (seed 000 section 5, the RunStore): what tools were about to do, what they did,
 * the artifacts they produced, the message groups and events of a run, live model deltas and large
 * payloads by digest. Activities call it from worker processes; workflow code never does.
 *
 * Failure semantics shared by every method:
 * - A method that resolves has made its write durable (SQLite: committed in WAL with
 *   `synchronous=FULL`; PostgreSQL: committed). A method that rejects has written nothing.
 * - Invalid input rejects with `store.invalid_record` or `store.payload_too_large` before any I/O.
 * - Writes are idempotent: repeating a write with the same content is a no-op; a different record
 *   under an existing key rejects with `store.conflict` and the first record stands.
 * - `store.unavailable` (busy, locked, unreachable) is the only retryable code; `store.closed`
 *   after {@link EvidenceStore.close}.
 * - Every error is a `StoreError` (a `HarnessError`) with one of the codes in `STORE_ERROR_CODES`.
 */
export interface EvidenceStore {
  /** `sqlite` or `postgres`. */
  readonly backend: 'sqlite' | 'postgres';

  /**
   * Record the intent of an invocation attempt before its executor runs. Idempotent by
   * (runId, seq, attempt); `recordedAt` is ignored when comparing.
   * @throws `store.conflict` when another intent is recorded under the same key.
   */
  recordIntent(intent: InvocationIntent): Promise<void>;

  /**
   * {@link EvidenceStore.recordIntent} and {@link EvidenceStore.appendEvents} of the run's `events` in
   * one transaction: both are written, or neither. What the tool activity calls (its events travel
   * with the intent). A store that wraps another must pass `events` on: dropping them loses the run's
   * evidence while the activity succeeds. `provisional`: the events come from a local activity (a fast
   * read), which runs inside its workflow task; they are stored as {@link EvidenceStore.appendLastFlush}
   * stores them, so the retried task's events replace those of an abandoned attempt.
   * @throws as recordIntent and appendEvents (with `provisional`, as appendLastFlush).
   */
  recordIntentWithEvents(
    intent: InvocationIntent,
    events: readonly StoredEvent[],
    o?: { readonly provisional?: boolean },
  ): Promise<void>;

  /**
   * Record the result of an invocation attempt and its artifacts in one transaction: either all are
   * written or none. Artifacts get the result's runId, seq and attempt. Ids in `result.artifactIds`
   * must be the ids of `artifacts` or of artifacts already stored.
   * @throws `store.no_intent` when (runId, seq, attempt) has no intent.
   * @throws `store.conflict` when the attempt already has a different result (the first result wins),
   *   or an artifact id is taken by a different artifact.
   * @throws `store.invalid_record` for an invalid artifact, an artifact id given twice or missing from
   *   `result.artifactIds`, or a listed id that is neither given nor stored.
   */
  recordResult(result: InvocationResult, artifacts: readonly Artifact[]): Promise<void>;

  /**
   * Record a reconciler's or an operator's decision on an invocation whose outcome was unknown. It is
   * {@link EvidenceStore.recordResult} with `source` `reconciler` or `operator` and the `evidence`
   * the decision rests on, with the same semantics: it conflicts with any different result already
   * recorded for the attempt, including one from the executor.
   * @throws `store.invalid_record` when `source` is `executor` or `evidence` is missing.
   */
  recordResolution(resolution: InvocationResolution, artifacts?: readonly Artifact[]): Promise<void>;

  /** Intents and results of one invocation sequence number, or undefined when it has no intent. */
  getInvocation(runId: string, seq: number): Promise<InvocationRecord | undefined>;

  /** Every invocation of a run, ordered by seq. */
  listInvocations(runId: string): Promise<InvocationRecord[]>;

  /**
   * Append the messages of one group. Idempotent by (runId, seq).
   * @throws `store.conflict` when the group exists with other messages.
   */
  appendMessageGroup(runId: string, seq: number, messages: readonly unknown[]): Promise<void>;

  /**
   * {@link EvidenceStore.appendMessageGroup} and {@link EvidenceStore.appendModelDeltas} of the run's
   * model call `callId` in one transaction: both are written, or neither. What the model activity
   * calls with its answer and the deltas it has not flushed yet. A store that wraps another must pass
   * `deltas` on.
   * @throws as appendMessageGroup and appendModelDeltas.
   */
  appendMessageGroupWithDeltas(
    runId: string,
    seq: number,
    messages: readonly unknown[],
    callId: string,
    deltas: readonly ModelDelta[],
  ): Promise<void>;

  /** Message groups of a run ordered by seq; `fromSeq` and `toSeq` are inclusive bounds. */
  listMessageGroups(runId: string, opts?: { fromSeq?: number; toSeq?: number }): Promise<MessageGroup[]>;

  /**
   * Store a model-provenance artifact produced outside a tool result (a plan, a summary).
   * Idempotent by artifact id (`recordedAt` ignored when comparing).
   * @throws `store.invalid_record` when the provenance is not `model` or the artifact is invalid.
   * @throws `store.conflict` when the id is taken by a different artifact.
   */
  putArtifact(input: ModelArtifactInput): Promise<StoredArtifact>;

  /** One artifact by id, or undefined. */
  getArtifact(id: string): Promise<StoredArtifact | undefined>;

  /** Artifacts of a run ordered by seq (nulls first) then id. */
  listArtifacts(runId: string): Promise<StoredArtifact[]>;

  /**
   * Append one run event. Idempotent by (runId, seq); `eventId` is unique across the store.
   * @throws `store.conflict` when (runId, seq) holds another event or `eventId` is used elsewhere.
   */
  appendEvent(event: StoredEvent): Promise<void>;

  /**
   * Append a batch of events in one transaction (one commit, one fsync), each with the semantics of
   * {@link EvidenceStore.appendEvent}: all are written, or none (an invalid or conflicting event
   * rejects the whole batch). An empty batch writes nothing. One exception to "conflicting": events a
   * last flush stored provisionally for a workflow task attempt that was then abandoned are replaced
   * by the retried attempt's (see {@link EvidenceStore.appendLastFlush}).
   * @throws `store.conflict` as appendEvent; `store.invalid_record` for an event given twice with
   *   different content in the batch.
   */
  appendEvents(events: readonly StoredEvent[]): Promise<void>;

  /**
   * Append the last flush of a workflow execution (a local activity, run again when its workflow
   * task is retried), provisional: should that task attempt be abandoned, the retried attempt's
   * events (what the history records, on a later workflow clock) replace them, through this call or
   * through appendEvents; the same events apart from their clock keep their first record; a late
   * commit of an older attempt changes nothing. Final events are never replaced. One transaction; the
   * rules are those of `appendEventsProgram` (src/activities/store/event-append-program.ts).
   * @throws `store.invalid_record` for an invalid event; `store.conflict` when final events, or later
   *   provisional ones that differ, hold its sequences.
   */
  appendLastFlush(events: readonly StoredEvent[]): Promise<void>;

  /**
   * The run's record (pinned versions, latest status, and at the end its terminal reason, response and
   * budget usage): a projection of its events kept in the transaction that appends them. Undefined
   * for a run without events, or whose events carry no pinned versions.
   */
  getRun(runId: string): Promise<RunRecord | undefined>;

  /**
   * Run records, most recently updated first, optionally of one status, of one tenant (runs started
   * for it: their `run.started` names it) and created in a window (`createdFrom` inclusive,
   * `createdBefore` exclusive, ISO 8601 with offset); `limit` default 100, max 5000.
   */
  listRuns(opts?: RunListOptions): Promise<RunRecord[]>;

  /**
   * The failure sample of a run that ended `failed`, `budget_exhausted` or blocked by a guardrail
   * (stored with its terminal event, see `failure-sample-record.ts`); undefined for any other run.
   */
  getFailureSample(runId: string): Promise<FailureSampleRecord | undefined>;

  /**
   * Failure samples, newest end first: ended at or after `since` (ISO 8601 with offset), of one
   * `reason`, of one tenant; `limit` default 100, max 5000.
   * @throws `store.invalid_record` for a malformed `since` or an unknown `reason`.
   */
  listFailureSamples(opts?: {
    since?: string;
    reason?: FailureReason;
    tenantId?: string;
    limit?: number;
  }): Promise<FailureSampleRecord[]>;

  /**
   * Events of a run with seq greater than `afterSeq` (default: all), ordered by seq, at most `limit`
   * (default 500, capped at 5000). An index range scan on (run_id, seq): cheap to poll.
   */
  listEvents(runId: string, opts?: { afterSeq?: number; limit?: number }): Promise<StoredEvent[]>;

  /**
   * Append deltas of a live model stream, all or none. Idempotent by (runId, callId, index).
   * @throws `store.conflict` when an index holds a different delta.
   */
  appendModelDeltas(runId: string, callId: string, deltas: readonly ModelDelta[]): Promise<void>;

  /** Deltas of one model call with index greater than `afterIndex`, ordered by index. */
  listModelDeltas(runId: string, callId: string, afterIndex?: number): Promise<ModelDelta[]>;

  /**
   * Store a JSON value by the digest of its canonical JSON. Idempotent; returns
   * `{ ref: 'blob://sha256:<hex>', digest: 'sha256:<hex>' }`.
   * @throws `store.payload_too_large` over `MAX_BLOB_BYTES`; `store.invalid_record` when not JSON.
   */
  putBlob(data: unknown): Promise<BlobRef>;

  /**
   * Store `items` as blobs, then the blob `index` builds from their references (in order), and the
   * run's `events` ({@link EvidenceStore.appendEvents}; may be empty), in one transaction, each blob as
   * {@link putBlob} does. Returns the index's reference. The model activity stores a request package
   * and the events it carries this way; a store that wraps another must pass `events` on. All or none: every value is
   * encoded and checked before the transaction starts (blob references are content digests, known
   * before anything is written), and a failure inside it stores nothing.
   * `provisional`: the events come from a local activity (a model call's fast try), which runs inside
   * its workflow task; they are stored as {@link EvidenceStore.appendLastFlush} stores them, so the
   * retried task's events replace those of an abandoned attempt.
   * @throws as {@link putBlob} for the first value that fails (`index` is called before any I/O; what
   *   it throws rejects the call as it is); as appendEvents (with `provisional`, as appendLastFlush).
   */
  putIndexedBlobs(
    items: readonly unknown[],
    index: (refs: readonly BlobRef[]) => unknown,
    events: readonly StoredEvent[],
    o?: { readonly provisional?: boolean },
  ): Promise<BlobRef>;

  /**
   * Load a blob and check its bytes against the digest in the reference.
   * @throws `store.invalid_ref` for a malformed reference; `store.not_found` when absent;
   *   `store.digest_mismatch` when the stored bytes do not hash to the digest (corruption).
   */
  getBlob(ref: string): Promise<unknown>;

  /**
   * Store a thread memory entry (docs/context.md, "Memory"). Idempotent by `entryId`.
   * @throws `store.invalid_record` when the entry breaks {@link MemoryEntrySchema} (free text, a model
   *   value...); `store.conflict` when its id holds another entry.
   */
  putMemory(entry: MemoryEntry): Promise<void>;

  /**
   * A scope's memory at `now`: the newest live entry per name (not forgotten, not expired), ordered by
   * name, at most `limit` (default 50, max 5000). With `all`: every entry of the scope, forgotten and
   * expired ones too, oldest first (for operators).
   */
  listMemory(
    scope: MemoryScope,
    opts: { now: string; limit?: number; all?: boolean },
  ): Promise<MemoryEntry[]>;

  /** Mark a scope's entries (or those of one name) forgotten now; the number marked. */
  forgetMemory(scope: MemoryScope, opts: { name?: string; at: string }): Promise<number>;

  /** Release connections. Idempotent; later calls reject with `store.closed`. */
  close(): Promise<void>;
}

/** Filters of {@link EvidenceStore.listRuns}. */
export interface RunListOptions {
  readonly status?: string;
  readonly tenantId?: string;
  /** Runs created at or after this instant (ISO 8601 with offset). */
  readonly createdFrom?: string;
  /** Runs created before this instant (ISO 8601 with offset). */
  readonly createdBefore?: string;
  readonly limit?: number;
}
