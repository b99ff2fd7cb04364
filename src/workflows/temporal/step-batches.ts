import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { AgentEvent } from '../../contract/agent-event.js';
import { canonicalJson } from '../../contract/canonical-json.js';
import { packEvents, type PackedEvents, type RunHeader } from '../../contract/packed-events.js';
import {
  headerDigestOfText,
  packEventsByRef,
  type EventDerivation,
  type PackedEventsByRef,
} from '../../contract/packed-events-by-ref.js';

/** A step's batch in the form its activity takes (the first, or by header reference). */
type PackedBatch =
  | {
      readonly byRef: false;
      readonly events: PackedEvents;
      readonly digest: undefined;
      readonly header: undefined;
    }
  | {
      readonly byRef: true;
      readonly events: PackedEventsByRef;
      readonly digest: string | undefined;
      readonly header: string | undefined;
    };

/**
 * How one execution packs the outbox batches of its step activities. On the second baseline a batch
 * names its header by reference and carries it only until an activity that carried it has completed
 * (its worker stored the header before the events: src/activities/run-header.ts). The set of stored headers
 * lives in this execution's memory only: it follows from the activity completions in the history, so
 * it replays the same, and a new execution (continue-as-new) sends its header once again.
 *
 * Failure semantics: none of its own; `pack` fails only as packing the events does.
 */
export function stepBatches(byRef: boolean) {
  const stored = new Set<string>();
  const digests = new Map<string, string>();
  const digestOf = (run: RunHeader): string => {
    const text = canonicalJson(run);
    let digest = digests.get(text);
    if (digest === undefined) digests.set(text, (digest = headerDigestOfText(text)));
    return digest;
  };
  return {
    /**
     * The batch as the activity takes it; `derive` is what the activity rebuilds from its input.
     * `digest`: the header the batch names; `header`: the same when the batch carries it.
     */
    pack(events: readonly AgentEvent[], derive: EventDerivation): PackedBatch {
      if (!byRef) return { byRef: false, events: packEvents(events), digest: undefined, header: undefined };
      const packed = packEventsByRef(events, { digestOf, stored: (d) => stored.has(d), derive });
      const digest = packed.header === '' ? undefined : packed.header;
      return { byRef: true, events: packed, digest, header: packed.run ? digest : undefined };
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
