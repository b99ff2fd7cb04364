import type { AgentEvent, DataClassification } from './agent-event.js';
import { defaultIds, packData, unpackData, type CodecContext } from './event-codecs-v3.js';
import { headerOf, type RunHeader } from './packed-events.js';
import {
  headerDigest,
  itemDefaults,
  NO_DERIVATION,
  toolCallDerivation,
  type CompactEvent,
  type EventDerivation,
  type PackedEventsByRef,
} from './packed-events-by-ref.js';
import type { RunConfigPin } from './run-config.js';
import { versionedName } from './versioned-name.js';

/**
 * The form of an outbox batch the third step format's activities take (`callModelV3`, `runToolV3`;
 * start feature `agent-run-step-format-v3`, docs/history-cost.md "Bytes per step: the third step
 * format"). The second format (packed-events-by-ref.ts) with more left out:
 *
 * - **ids**: a goal model turn's and tool call's step and attempt ids (`model-<callSeq>`,
 *   `model-<callSeq>#1`, `tool-<seq>`, `tool-<seq>#1`) are defaults of `model.started`,
 *   `model.completed`, `tool.authorized` and `tool.completed`, computed from the event's data; an id
 *   that differs travels, a null one as `null` ({@link defaultIds});
 * - **data**: the defaults of event-codecs-v3.ts (constants, header fields, the activity's input, the
 *   call's own context package id), only where the round trip gives back the same data.
 *
 * The header travels and is named exactly as in the second format, with the execution's call
 * defaults added ({@link CallDefaults}: what every step input of the execution would repeat,
 * compact-step-input-v3.ts). The activity turns a batch into
 * the second format's with every item whole ({@link expandEventsV3}), so the same code stores it:
 * what is stored is identical. Only activities of the third names receive this form: a worker of an
 * older release has no such activity and fails the task (`NotFoundError`).
 */
export interface PackedEventsV3 {
  /** The header's digest, `sha256:<hex of its canonical JSON>`; '' for an empty batch. */
  readonly header: string;
  /** The header itself, sent until an activity that carried it has completed in this execution. */
  readonly run?: RunHeaderV3;
  readonly items: readonly CompactEventV3[];
}

/**
 * What every step input of one execution has alike, once in its header: the run's config pin
 * (`agent-run-config-pin-v1`), and the definition digest of each tool the execution pinned (its tool
 * snapshot) by `name@version` (`agent-run-tool-definition-pin-v1`). Absent where the run has none.
 */
export interface CallDefaults {
  readonly configPin?: RunConfigPin;
  readonly tools?: Readonly<Record<string, string>>;
}

/** The third format's header: the events' shared envelope fields and the execution's call defaults. */
export type RunHeaderV3 = RunHeader & { readonly calls?: CallDefaults };

/** A packed event of the third format (see {@link PackedEventsV3}). */
export interface CompactEventV3 {
  readonly q?: number;
  readonly t: string;
  readonly at?: string;
  /** Absent: the type's default id ({@link defaultIds}), else null. */
  readonly s?: string | null;
  readonly a?: string | null;
  readonly p?: string;
  readonly c?: DataClassification;
  /** The data as it is. */
  readonly d?: Readonly<Record<string, unknown>>;
  /** Without `d`: what the data has beyond its defaults (absent: nothing). */
  readonly x?: Readonly<Record<string, unknown>>;
}

/**
 * A tool call's derivation in the third format: the second's, and the tool its `model.completed`
 * proposed (the model turn that led to this call proposed it alone, as a rule).
 */
export function toolCallDerivationV3(input: Parameters<typeof toolCallDerivation>[0]): EventDerivation {
  const second = toolCallDerivation(input);
  const toolCalls = [versionedName(input.tool, input.version)];
  return (type) => (type === 'model.completed' ? { toolCalls } : second(type));
}

/** How {@link packEventsV3} packs: as the second format (`PackByRefOptions`), with the call defaults. */
export interface PackV3Options {
  readonly digestOf?: (run: RunHeader) => string;
  /** Whether the header of that digest is known to be in the evidence store. */
  readonly stored: (digest: string) => boolean;
  /** Data the receiving activity derives from its input. */
  readonly derive?: EventDerivation;
  /** The execution's call defaults, carried in the header. */
  readonly calls?: CallDefaults;
}

/** The header of a batch in the third format: its first event's envelope and the call defaults. */
export function headerOfV3(first: AgentEvent, calls: CallDefaults | undefined): RunHeaderV3 {
  return { ...headerOf(first), ...(calls && Object.keys(calls).length > 0 ? { calls } : {}) };
}

/** Pack a batch in the third format (inverse: {@link expandEventsV3}). */
export function packEventsV3(events: readonly AgentEvent[], o: PackV3Options): PackedEventsV3 {
  const first = events[0];
  if (!first) return { header: '', items: [] };
  const run = headerOfV3(first, o.calls);
  const header = (o.digestOf ?? headerDigest)(run);
  const derive = o.derive ?? NO_DERIVATION;
  const defaults = itemDefaults();
  let at: string | undefined;
  let q: number | undefined;
  const items = events.map((e): CompactEventV3 => {
    const [producer, classification] = defaults[e.type] ?? [];
    const ids = defaultIds(e.type, e.data);
    const item: CompactEventV3 = {
      ...(q === undefined || e.sequence !== q + 1 ? { q: e.sequence } : {}),
      t: e.type,
      ...(e.occurredAt !== at ? { at: e.occurredAt } : {}),
      ...(ids ? (e.stepId !== ids[0] ? { s: e.stepId } : {}) : e.stepId !== null ? { s: e.stepId } : {}),
      ...(ids
        ? e.attemptId !== ids[1]
          ? { a: e.attemptId }
          : {}
        : e.attemptId !== null
          ? { a: e.attemptId }
          : {}),
      ...(e.producer !== producer ? { p: e.producer } : {}),
      ...(e.dataClassification !== classification ? { c: e.dataClassification } : {}),
      ...packData(e.type, e.data, { run, input: derive(e.type) }),
    };
    at = e.occurredAt;
    q = e.sequence;
    return item;
  });
  return { header, ...(o.stored(header) ? {} : { run }), items };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const isId = (v: unknown): v is string | null | undefined =>
  v === undefined || v === null || typeof v === 'string';

/**
 * The second format's batch of the same events, every item whole (time, sequence, producer,
 * classification and data), given the batch's header and the receiving activity's derivation: what
 * the second format's restore (run-header.ts) stores exactly as the first form.
 * @throws Error for an item that cannot be completed: not an object, no time or sequence before it,
 *   ids or data of the wrong shape, a type the format does not know without its producer or
 *   classification.
 */
export function expandEventsV3(
  run: RunHeader,
  packed: PackedEventsV3,
  derive: EventDerivation = NO_DERIVATION,
): PackedEventsByRef {
  const defaults = itemDefaults();
  let at: string | undefined;
  let q: number | undefined;
  const items = packed.items.map((i: CompactEventV3): CompactEvent => {
    if (!isRecord(i) || typeof i.t !== 'string') throw new Error('an item of the batch is not an event');
    at = i.at ?? at;
    q = i.q ?? (q === undefined ? undefined : q + 1);
    if (typeof at !== 'string' || typeof q !== 'number')
      throw new Error(`an event of type ${i.t} has no time or sequence`);
    const [producer, classification] = defaults[i.t] ?? [];
    const p = i.p ?? producer;
    const c = i.c ?? classification;
    if (p === undefined || c === undefined)
      throw new Error(`event ${q} (${i.t}) names no producer or classification`);
    if (
      !isId(i.s) ||
      !isId(i.a) ||
      (i.d !== undefined && !isRecord(i.d)) ||
      (i.x !== undefined && !isRecord(i.x))
    )
      throw new Error(`event ${q} (${i.t}) has ids or data of the wrong shape`);
    const ctx: CodecContext = { run, input: derive(i.t) };
    const d = i.d ?? unpackData(i.t, i.x, ctx);
    const ids = defaultIds(i.t, d);
    const s = i.s !== undefined ? i.s : (ids?.[0] ?? null);
    const a = i.a !== undefined ? i.a : (ids?.[1] ?? null);
    return { q, t: i.t, at, ...(s !== null ? { s } : {}), ...(a !== null ? { a } : {}), p, c, d };
  });
  return { header: packed.header, ...(packed.run ? { run: packed.run } : {}), items };
}
