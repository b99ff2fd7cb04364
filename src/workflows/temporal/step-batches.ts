import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { AgentEvent } from '../../contract/agent-event.js';
import { canonicalJson } from '../../contract/canonical-json.js';
import { packEvents, type PackedEvents, type RunHeader } from '../../contract/packed-events.js';
import {
  headerOfV3,
  packEventsV3,
  type CallDefaults,
  type PackedEventsV3,
  type RunHeaderV3,
} from '../../contract/packed-events-v3.js';
import {
  headerDigestOfText,
  packEventsByRef,
  type EventDerivation,
  type PackedEventsByRef,
} from '../../contract/packed-events-by-ref.js';

/**
 * A step's batch in the form its activity takes (the first, by header reference, or the third step
 * format's). `run`: the third format's batch header, which the input's defaults follow
 * (compact-step-input-v3.ts).
 */
type PackedBatch =
  | {
      readonly byRef: false;
      readonly v3: false;
      readonly events: PackedEvents;
      readonly digest: undefined;
      readonly header: undefined;
    }
  | {
      readonly byRef: true;
      readonly v3: false;
      readonly events: PackedEventsByRef;
      readonly digest: string | undefined;
      readonly header: string | undefined;
    }
  | {
      readonly byRef: true;
      readonly v3: true;
      readonly events: PackedEventsV3;
      readonly digest: string | undefined;
      readonly header: string | undefined;
      readonly run: RunHeaderV3 | undefined;
    };

/**
 * How one execution packs the outbox batches of its step activities. On the second baseline a batch
 * names its header by reference and carries it only until an activity that carried it has completed
 * (its worker stored the header before the events: src/activities/run-header.ts). The set of stored headers
 * lives in this execution's memory only: it follows from the activity completions in the history, so
 * it replays the same, and a new execution (continue-as-new) sends its header once again. With `v3`
 * (the execution's call defaults: start feature `agent-run-step-format-v3`, only with `byRef`) batches
 * take the third step format (packed-events-v3.ts), whose header (with the call defaults) is sent and
 * named the same way.
 *
 * Failure semantics: none of its own; `pack` fails only as packing the events does.
 */
export function stepBatches(byRef: boolean, v3?: CallDefaults) {
  const stored = new Set<string>();
  const digests = new Map<string, string>();
  const digestOf = (run: RunHeader): string => {
    const text = canonicalJson(run);
    let digest = digests.get(text);
    if (digest === undefined) digests.set(text, (digest = headerDigestOfText(text)));
    return digest;
  };
  return {
    /** Batches take the third step format (`callModelV3`, `runToolV3`). */
    v3: v3 !== undefined,
    /**
     * The batch as the activity takes it; `derive` is what the activity rebuilds from its input (the
     * port passes the third format's derivation on `v3`).
     * `digest`: the header the batch names; `header`: the same when the batch carries it.
     */
    pack(events: readonly AgentEvent[], derive: EventDerivation): PackedBatch {
      if (!byRef)
        return { byRef: false, v3: false, events: packEvents(events), digest: undefined, header: undefined };
      const o = { digestOf, stored: (d: string) => stored.has(d), derive };
      if (v3) {
        const packed = packEventsV3(events, { ...o, calls: v3 });
        const digest = packed.header === '' ? undefined : packed.header;
        const run = events[0] ? headerOfV3(events[0], v3) : undefined;
        return {
          byRef: true,
          v3: true,
          events: packed,
          digest,
          header: packed.run ? digest : undefined,
          run,
        };
      }
      const packed = packEventsByRef(events, o);
      const digest = packed.header === '' ? undefined : packed.header;
      return { byRef: true, v3: false, events: packed, digest, header: packed.run ? digest : undefined };
    },
    /** The activity that carried `header` completed: later batches may name it alone. */
    stored(header: string | undefined): void {
      if (header !== undefined) stored.add(header);
    },
    /**
     * The activity failed. When its worker could not restore the header it named (the store does not
     * hold it, e.g. restored from an older backup), the next batches carry it again, so the run heals
     * instead of failing every later step. Payloads only: the commands are the same either way.
     */
    failed(digest: string | undefined, err: unknown): void {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      const type = cause instanceof ApplicationFailure ? cause.type : undefined;
      if (digest !== undefined && type?.startsWith('events.header_') === true) stored.delete(digest);
    },
  };
}

/** One execution's packing of step batches (see {@link stepBatches}). */
export type StepBatches = ReturnType<typeof stepBatches>;
