import type { ModelEvent } from './model/events.js';
import type { EvidenceStore } from './store/index.js';

/** Deltas stored in one write (and one heartbeat) while the answer streams. */
const DELTA_FLUSH_EVERY = 16;
/**
 * The streamed deltas of one call are stored until the answer reaches this many UTF-8 bytes; the rest
 * of a longer answer is not (the completed event repeats it whole, and one stored record is at most
 * 1 MiB). The call's message group keeps the whole answer that was taken.
 */
const MAX_STORED_DELTA_BYTES = 262_144;

type PendingDelta = { index: number; type: string; data: unknown };

/**
 * The streamed deltas of one model call attempt, written to the evidence store as they come (live,
 * outside history): every {@link DELTA_FLUSH_EVERY} deltas one write, after a heartbeat, one write at
 * a time; the last ones go in the transaction of the answer ({@link ModelDeltaWriter.withLast}).
 */
export class ModelDeltaWriter {
  private pending: PendingDelta[] = [];
  private index = 0;
  private flushing = Promise.resolve();
  private streamed = 0;

  constructor(
    private readonly store: EvidenceStore,
    private readonly runId: string,
    private readonly callId: string,
    private readonly heartbeat: (details: unknown) => void,
  ) {}

  /** The provider's event handler. Never throws (a failed write rejects {@link ModelDeltaWriter.settled}). */
  onEvent = (e: ModelEvent): void => {
    if (e.type === 'model.text.delta') this.streamed += Buffer.byteLength(e.delta);
    if (e.type === 'model.tool_call.delta') this.streamed += Buffer.byteLength(e.argumentsDelta);
    if (this.streamed > MAX_STORED_DELTA_BYTES) return;
    this.pending.push({ index: this.index++, type: e.type, data: e });
    if (this.pending.length >= DELTA_FLUSH_EVERY) {
      this.heartbeat({ deltas: this.index });
      this.flushing = this.flushing.then(this.flush);
    }
  };

  /** Resolves when the writes started so far are done; rejects with the first that failed. */
  settled(): Promise<void> {
    return this.flushing;
  }

  /** Writes the deltas not written yet. @throws the store's errors. */
  flush = async (): Promise<void> => {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    await this.store.appendModelDeltas(this.runId, this.callId, batch);
  };

  /**
   * Runs `write` with the deltas not written yet (it writes them with the answer). When it fails, they
   * are written alone (that write's errors ignored) and its error is thrown.
   */
  async withLast<T>(write: (last: readonly PendingDelta[]) => Promise<T>): Promise<T> {
    const last = this.pending;
    this.pending = [];
    try {
      return await write(last);
    } catch (err) {
      this.pending = last;
      await this.flush().catch(() => undefined);
      throw err;
    }
  }
}
