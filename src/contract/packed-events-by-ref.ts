import { sha256Hex } from './sha256.js';
import { canonicalJson } from './canonical-json.js';
import type { AgentEvent, DataClassification } from './agent-event.js';
import { headerOf, NO_EVENTS, type PackedEvents, type RunHeader } from './packed-events.js';

/**
 * The form of an outbox batch the `…V2` step activities take (`callModelV2`, `runToolV2`, second
 * baseline, run-patches.ts). Every batch of an execution shares one run header, so once an activity
 * that carried it has completed (its worker stored the header in the evidence store as a blob,
 * before the events) a batch names it by digest alone. Items leave out what the reader can tell
 * without them: a time equal to the previous item's, a sequence one above the previous item's, null
 * step and attempt ids, the producer and classification this format gives the type (frozen: {@link itemDefaults}), and data
 * the activity derives from its own input (`model.started`, `tool.authorized`: see
 * {@link EventDerivation}). The activity restores exactly the {@link PackedEvents} of the same events
 * (src/activities/run-header.ts), so what is stored is identical.
 *
 * Only activities of the second names receive this form: a worker of an older release has no such
 * activity and fails the task (`NotFoundError`), so it never reads a batch it would not understand.
 */
export interface PackedEventsByRef {
  /** The header's digest, `sha256:<hex of its canonical JSON>`; '' for an empty batch. */
  readonly header: string;
  /** The header itself, sent until an activity that carried it has completed in this execution. */
  readonly run?: RunHeader;
  readonly items: readonly CompactEvent[];
}

/** A packed event with what its reader can tell left out (see {@link PackedEventsByRef}). */
export interface CompactEvent {
  readonly q?: number;
  readonly t: string;
  readonly at?: string;
  readonly s?: string;
  readonly a?: string;
  readonly p?: string;
  readonly c?: DataClassification;
  /** The data as it is (absent: derived, see {@link EventDerivation}). */
  readonly d?: Readonly<Record<string, unknown>>;
  /** With the data derived: the fields the derivation does not give. */
  readonly x?: Readonly<Record<string, unknown>>;
}

/**
 * The producer and classification an item leaves out, by event type: part of this format, frozen.
 * Workflow and activity workers of different releases may both speak the format, so these may not
 * follow the event catalogue when it changes: a change here (or in the derivations below) is a new
 * format under new activity names. A test pins both (test/unit/activities/run-header.test.ts). An
 * event of another type, or another producer or classification, carries its own.
 */
const ITEM_DEFAULTS: Readonly<Record<string, readonly [string, DataClassification]>> = Object.freeze({
  'run.created': ['runner', 'internal'],
  'run.started': ['runner', 'internal'],
  'state.transitioned': ['runner', 'public'],
  'checkpoint.saved': ['runner', 'public'],
  'step.started': ['runner', 'public'],
  'step.completed': ['runner', 'public'],
  'guardrail.input_checked': ['guardrail', 'internal'],
  'model.started': ['model_gateway', 'internal'],
  'model.completed': ['model_gateway', 'internal'],
  'tool.proposed': ['tool_pipeline', 'internal'],
  'policy.decided': ['policy', 'internal'],
  'tool.authorized': ['tool_pipeline', 'internal'],
  'tool.completed': ['tool_pipeline', 'internal'],
} as const);

/** The frozen defaults of the format (for the test that pins them). */
export function itemDefaults(): Readonly<Record<string, readonly [string, DataClassification]>> {
  return ITEM_DEFAULTS;
}

/**
 * Event data an activity can rebuild from its own input: given a type, fields an event of that type
 * carries with the same values the input has, else undefined. The packer leaves those fields out only
 * when the event holds every one of them with a canonically equal value (the rest travel in `x`); an
 * event that differs travels as it is.
 */
export type EventDerivation = (type: string) => Readonly<Record<string, unknown>> | undefined;

/** No event is derived. */
export const NO_DERIVATION: EventDerivation = () => undefined;

/** A model call's `model.started`: the call's number, purpose, route and tools, as its input has them. */
export function modelCallDerivation(input: {
  readonly callSeq: number;
  readonly purpose: string;
  readonly modelRoute: string;
  readonly toolKeys: readonly string[];
}): EventDerivation {
  return (type) =>
    type === 'model.started'
      ? {
          callSeq: input.callSeq,
          purpose: input.purpose,
          modelRoute: input.modelRoute,
          toolKeys: input.toolKeys,
        }
      : undefined;
}

/**
 * A tool call's `tool.authorized` (the invocation's number, tool, effect and arguments digest), and
 * the tool and arguments digest its `policy.decided` and `tool.proposed` name.
 */
export function toolCallDerivation(input: {
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly effect: string;
  readonly argsDigest: string;
}): EventDerivation {
  const { tool, version, argsDigest } = input;
  return (type) => {
    switch (type) {
      case 'tool.authorized':
        return { seq: input.seq, tool, version, effect: input.effect, argsDigest };
      case 'policy.decided':
        return { tool, version, argsDigest };
      case 'tool.proposed':
        return { tool, version };
      default:
        return undefined;
    }
  };
}

/** The event's data without the derived fields, or undefined when it does not hold them all as derived. */
function beyondDerived(
  data: Readonly<Record<string, unknown>>,
  derived: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  for (const [k, v] of Object.entries(derived)) {
    if (!Object.hasOwn(data, k) || canonicalJson(data[k]) !== canonicalJson(v)) return undefined;
  }
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (!Object.hasOwn(derived, k)) rest[k] = v;
  return rest;
}

/** The data part of a compact item: nothing (all derived), the rest (`x`), or the data as it is (`d`). */
function dataPart(
  data: Readonly<Record<string, unknown>>,
  derived: Readonly<Record<string, unknown>> | undefined,
): Pick<CompactEvent, 'd' | 'x'> {
  const rest = derived === undefined ? undefined : beyondDerived(data, derived);
  if (rest === undefined) return { d: data };
  return Object.keys(rest).length === 0 ? {} : { x: rest };
}

/** The digest a header is named by (the evidence store's blob digest of its canonical JSON). */
export function headerDigest(run: RunHeader): string {
  return headerDigestOfText(canonicalJson(run));
}

/** {@link headerDigest} of a header's canonical JSON text. */
export function headerDigestOfText(canonical: string): string {
  return `sha256:${sha256Hex(canonical)}`;
}

/** True for the form by reference. */
export function isPackedByRef(packed: PackedEvents | PackedEventsByRef): packed is PackedEventsByRef {
  return 'header' in packed;
}

export interface PackByRefOptions {
  /** The digest of a header (memoized by the caller; {@link headerDigest} by default). */
  readonly digestOf?: (run: RunHeader) => string;
  /** Whether the header of that digest is known to be in the evidence store. */
  readonly stored: (digest: string) => boolean;
  /** Data the receiving activity derives from its input. */
  readonly derive?: EventDerivation;
}

/** Pack a batch by header reference (inverse: {@link expandCompactEvents}). */
export function packEventsByRef(events: readonly AgentEvent[], o: PackByRefOptions): PackedEventsByRef {
  const first = events[0];
  if (!first) return { header: '', items: [] };
  const run = headerOf(first);
  const header = (o.digestOf ?? headerDigest)(run);
  const derive = o.derive ?? NO_DERIVATION;
  let at: string | undefined;
  let q: number | undefined;
  const items = events.map((e): CompactEvent => {
    const [producer, classification] = ITEM_DEFAULTS[e.type] ?? [];
    const item: CompactEvent = {
      ...(q === undefined || e.sequence !== q + 1 ? { q: e.sequence } : {}),
      t: e.type,
      ...(e.occurredAt !== at ? { at: e.occurredAt } : {}),
      ...(e.stepId !== null ? { s: e.stepId } : {}),
      ...(e.attemptId !== null ? { a: e.attemptId } : {}),
      ...(e.producer !== producer ? { p: e.producer } : {}),
      ...(e.dataClassification !== classification ? { c: e.dataClassification } : {}),
      ...dataPart(e.data, derive(e.type)),
    };
    at = e.occurredAt;
    q = e.sequence;
    return item;
  });
  return { header, ...(o.stored(header) ? {} : { run }), items };
}

/**
 * The {@link PackedEvents} of a batch packed by reference, given its header and the derivation of
 * the activity that received it.
 * @throws Error for an item the reader cannot complete: no time or sequence before it, a type the
 *   catalogue does not know without its producer or classification, data left out that the
 *   derivation does not give.
 */
export function expandCompactEvents(
  run: RunHeader,
  items: readonly CompactEvent[],
  derive: EventDerivation = NO_DERIVATION,
): PackedEvents {
  if (items.length === 0) return NO_EVENTS;
  let at: string | undefined;
  let q: number | undefined;
  return {
    run,
    items: items.map((i) => {
      at = i.at ?? at;
      q = i.q ?? (q === undefined ? undefined : q + 1);
      const [producer, classification] = ITEM_DEFAULTS[i.t] ?? [];
      const p = i.p ?? producer;
      const c = i.c ?? classification;
      const derived = i.d === undefined ? derive(i.t) : undefined;
      const d = i.d ?? (derived && i.x ? { ...derived, ...i.x } : derived);
      if (at === undefined || q === undefined)
        throw new Error(`an event of type ${i.t} has no time or sequence`);
      if (p === undefined || c === undefined)
        throw new Error(`event ${q} (${i.t}) names no producer or classification`);
      if (d === undefined) throw new Error(`event ${q} (${i.t}) has no data and none derives from the input`);
      return { q, t: i.t, at, s: i.s ?? null, a: i.a ?? null, p, c, d };
    }),
  };
}
