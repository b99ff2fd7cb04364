import { z } from 'zod';
import { jsonBoundsProblem, type JsonBounds } from '../../contract/json-bounds.js';
import type { AgentEvent } from '../../contract/agent-event.js';

/**
 * Most events one generation hands to the next. What can be emitted after a generation's last flush
 * is a signal handler's work: at most `MAX_REFUSAL_EVENTS_PER_WAIT` refusals (the count of the rest
 * in one more event) and the approvals a decision records, far below this. Runs from before signed
 * decisions record every refusal one by one: beyond this many, the rest are not carried.
 */
export const MAX_CARRIED_EVENTS = 64;

/**
 * The carried events as JSON, as the next generation checks them: more than {@link eventsToCarry}
 * ever carries (this bound counts approximately, never under), and deep, because a refused payload's
 * preview keeps its nesting (2,000 characters can nest 1,000 levels).
 */
const CARRIED_EVENTS_BOUNDS: JsonBounds = { maxChars: 1024 * 1024, maxDepth: 2_100 };

const CarriedEventsSchema = z.lazy(() =>
  z
    .array(
      z
        .object({
          schemaVersion: z.literal('1'),
          eventId: z.string().min(1).max(300),
          traceId: z.string().min(1).max(300),
          runId: z.string().min(1).max(300),
          threadId: z.string().max(300),
          stepId: z.string().max(300).nullable(),
          attemptId: z.string().max(300).nullable(),
          sequence: z.number().int().nonnegative(),
          type: z.string().min(1).max(100),
          occurredAt: z.string().min(1).max(40),
          producer: z.string().min(1).max(100),
          data: z.record(z.string(), z.unknown()),
          dataClassification: z.enum(['public', 'internal', 'confidential', 'restricted']),
          versions: z.record(z.string(), z.string().max(300)),
        })
        .strict(),
    )
    .min(1)
    .max(MAX_CARRIED_EVENTS),
);

/**
 * Most characters of the carried events as JSON. With the carried run state this stays well under
 * Temporal's 2 MB payload limit, even at 3 bytes a character.
 */
export const MAX_CARRIED_EVENT_CHARS = 256 * 1024;

/** What a generation carries of the events it emitted after its last flush. */
export interface EventsToCarry {
  /** The events, in order; undefined when there are none. */
  readonly events: AgentEvent[] | undefined;
  /**
   * Set when the events past the bounds are left out: the carried state's next sequence number,
   * lowered to the first one left out. They were the last events emitted, so the run's sequence
   * stays gap-free; only they are lost.
   */
  readonly nextEventSeq: number | undefined;
}

/**
 * The events a generation emitted after its last flush, to carry to the next one: signal handlers
 * that ran while that flush stored the outbox. The next generation stores them with its first
 * activity, under their own sequence numbers, so the run's sequence stays gap-free. At most
 * {@link MAX_CARRIED_EVENTS} of them, and {@link MAX_CARRIED_EVENT_CHARS} as JSON: signed runs never
 * come near that (at most 20 refusals, then a count); runs from before signed decisions record every
 * refusal and may leave the latest ones out.
 */
export function eventsToCarry(late: readonly AgentEvent[]): EventsToCarry {
  let chars = 0;
  let kept = 0;
  for (const e of late) {
    if (kept === MAX_CARRIED_EVENTS) break;
    chars += JSON.stringify(e).length;
    if (chars > MAX_CARRIED_EVENT_CHARS) break;
    kept += 1;
  }
  return {
    events: kept === 0 ? undefined : late.slice(0, kept),
    nextEventSeq: kept < late.length ? late[kept]!.sequence : undefined,
  };
}

/**
 * Carried events, checked before the next generation stores them: bounded, of this run, numbered below
 * the carried state's next sequence number, in order and distinct.
 * @returns the problem, or undefined when they are fine.
 */
export function carriedEventsProblem(
  value: unknown,
  runId: string,
  nextEventSeq: number,
): string | undefined {
  const bounds = jsonBoundsProblem(value, CARRIED_EVENTS_BOUNDS);
  if (bounds !== undefined) return `the events are ${bounds}`;
  const parsed = CarriedEventsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
  }
  let previous = -1;
  for (const e of parsed.data) {
    if (e.runId !== runId) return `event ${e.sequence} belongs to run ${e.runId}, not ${runId}`;
    if (e.sequence <= previous) return `event ${e.sequence} is out of order`;
    if (e.sequence >= nextEventSeq)
      return `event ${e.sequence} is numbered at or after the next sequence number ${nextEventSeq}`;
    previous = e.sequence;
  }
  return undefined;
}
