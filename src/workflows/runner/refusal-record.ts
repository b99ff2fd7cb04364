import type { DecisionOutcome } from '../../contract/signals.js';
import type { RunCore } from './run-core.js';

/** Most characters of a rejected signal's payload kept in its event (payloads are untrusted input). */
const MAX_REJECTED_PAYLOAD_CHARS = 2_000;
/** Most characters of a refusal's message kept in its event (it may quote what the signal held). */
const MAX_REFUSAL_MESSAGE_CHARS = 1_000;
/**
 * Most `human.signal_rejected` events per wait: a flood of bad decisions cannot grow the outbox (and
 * the next activity's input) without limit. Beyond it refusals are counted, and the count is recorded
 * once when the wait ends (`human.signal_rejections_suppressed`).
 */
export const MAX_REFUSAL_EVENTS_PER_WAIT = 20;

/** The payload of a rejected signal as JSON data of bounded size (a preview when too large). */
function boundedPayload(payload: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(payload);
  } catch {
    text = undefined;
  }
  if (text === undefined) return { unserializable: typeof payload };
  if (text.length <= MAX_REJECTED_PAYLOAD_CHARS) return JSON.parse(text) as unknown;
  return { truncated: true, preview: text.slice(0, MAX_REJECTED_PAYLOAD_CHARS) };
}

/**
 * The bounded record of refused decisions: at most {@link MAX_REFUSAL_EVENTS_PER_WAIT} events per
 * wait, then a count; the last 10 in the run state (the `state` query). Never throws.
 */
export class RefusalRecord {
  private events = 0;
  private suppressed = 0;
  private total = 0;

  /**
   * @param bounded signed runs only: runs from before keep one event per refusal, so their event
   *   sequence numbers replay exactly as recorded.
   */
  constructor(
    private readonly core: RunCore,
    private readonly bounded: boolean,
  ) {}

  /** Refusals since this generation of the run started. */
  get count(): number {
    return this.total;
  }

  /** Record one refusal; returns the answer an update caller gets. */
  refuse(
    signal: string,
    code: string,
    message: string,
    payload: unknown,
    principal?: string,
  ): DecisionOutcome {
    const state = this.core.state;
    this.total += 1;
    if (!this.bounded || this.events < MAX_REFUSAL_EVENTS_PER_WAIT) {
      this.events += 1;
      this.core.emit('human.signal_rejected', {
        signal,
        code,
        message: message.slice(0, MAX_REFUSAL_MESSAGE_CHARS),
        pendingActionId: state.pendingAction?.actionId ?? null,
        ...(principal !== undefined ? { principal } : {}),
        payload: boundedPayload(payload),
      });
    } else {
      this.suppressed += 1;
    }
    // Visible at once in the `state` query (the event reaches the store with the next write).
    state.signalRejections = [
      ...(state.signalRejections ?? []),
      { signal, code, message: message.slice(0, 300), at: this.core.ports.now() },
    ].slice(-10);
    this.core.ports.publish(state);
    return { accepted: false, code, message, ...(principal !== undefined ? { principal } : {}) };
  }

  /** At the end of a wait: record, once, how many refusals were not recorded one by one. */
  endWait(): void {
    if (this.suppressed > 0)
      this.core.emit('human.signal_rejections_suppressed', { count: this.suppressed, recorded: this.events });
    this.suppressed = 0;
    this.events = 0;
  }
}
