import type { AgentEvent, DataClassification } from '../../contract/agent-event.js';
import type { StoredEvent } from '../../contract/store-records.js';
import { classifyKey, DEFAULT_FIELD_RULES, type FieldRule } from '../../contract/field-classification.js';
import { maskPhoneNumber, maskPhonesInText, PHONE_KEY } from './phone-mask.js';

/** The obligation that asks for phone numbers to be masked wherever an outside reader sees them. */
export const MASK_PHONE_OBLIGATION = 'mask.phone';

/** What replaces a confidential value. */
export const REDACTED = '[redacted:confidential]';

/** One event as an outside reader sees it. */
export interface PublicEvent {
  readonly schemaVersion: '1';
  readonly eventId: string;
  readonly runId: string;
  readonly sequence: number;
  readonly type: string;
  readonly occurredAt: string;
  readonly stepId: string | null;
  readonly dataClassification: DataClassification;
  /** True when anything in `data` was removed, redacted or masked. */
  readonly redacted: boolean;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The public projection of one run's events. */
export interface PublicProjection {
  readonly events: readonly PublicEvent[];
  /** Sequences of `restricted` events left out entirely (so a reader can tell a gap from a loss). */
  readonly omittedSequences: readonly number[];
  /** The obligations that were applied (e.g. `mask.phone`). */
  readonly appliedObligations: readonly string[];
}

export interface ProjectionOptions {
  /** Obligations to apply in addition to those found in the run's `policy.decided` events. */
  readonly obligations?: readonly string[];
  /** Field rules (default {@link DEFAULT_FIELD_RULES}). */
  readonly fieldRules?: readonly FieldRule[];
}

/** The envelope fields the projection reads. Stored envelopes may carry more. */
export type ProjectableEvent = Pick<
  AgentEvent,
  'eventId' | 'runId' | 'sequence' | 'type' | 'occurredAt' | 'stepId' | 'data' | 'dataClassification'
>;

/**
 * Every obligation named by a `policy.decided` event of the run (`data.obligations`), deduplicated in
 * order of first appearance. Malformed obligation lists are ignored.
 */
export function runObligations(events: readonly Pick<ProjectableEvent, 'type' | 'data'>[]): string[] {
  const seen = new Set<string>();
  for (const e of events) {
    if (e.type !== 'policy.decided') continue;
    const list = e.data.obligations;
    if (!Array.isArray(list)) continue;
    for (const o of list) if (typeof o === 'string') seen.add(o);
  }
  return [...seen];
}

/**
 * The AgentEvent envelopes of stored events (the `envelope` column written by the event outbox).
 * @throws Error when a stored row has no usable envelope (written by something else than the outbox).
 */
export function envelopesOf(stored: readonly StoredEvent[]): ProjectableEvent[] {
  return stored.map((s) => {
    const env = s.envelope as Partial<AgentEvent> | undefined;
    if (!env || typeof env.dataClassification !== 'string' || typeof env.sequence !== 'number') {
      throw new Error(`stored event ${s.runId}#${s.seq} has no AgentEvent envelope`);
    }
    return env as ProjectableEvent;
  });
}

interface Walk {
  readonly rules: readonly FieldRule[];
  readonly maskPhone: boolean;
  changed: boolean;
}

function project(value: unknown, w: Walk, phoneField: boolean): unknown {
  if (typeof value === 'string') {
    if (!w.maskPhone) return value;
    const masked = phoneField ? maskPhoneNumber(value) : maskPhonesInText(value);
    if (masked !== value) w.changed = true;
    return masked;
  }
  if (typeof value === 'number' && phoneField && w.maskPhone) {
    w.changed = true;
    return maskPhoneNumber(String(value));
  }
  if (Array.isArray(value)) return value.map((v) => project(v, w, phoneField));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const c = classifyKey(k, w.rules);
      if (c === 'restricted') {
        w.changed = true;
        continue;
      }
      if (c === 'confidential') {
        w.changed = true;
        out[k] = REDACTED;
        continue;
      }
      out[k] = project(v, w, PHONE_KEY.test(k));
    }
    return out;
  }
  return value;
}

/**
 * What an outside reader sees of a run's events:
 * - `restricted` events are left out (their sequences listed in `omittedSequences`);
 * - `confidential` events keep their envelope, their data is replaced by `{ redacted: 'confidential' }`;
 * - `public` and `internal` events keep their data, except that fields the field rules classify as
 *   `restricted` are removed and `confidential` ones replaced by {@link REDACTED}, at any depth;
 * - when `mask.phone` applies (named by any `policy.decided` event of the run, or passed in
 *   `options.obligations`), phone numbers are masked wherever they appear: values under phone-like
 *   keys at any depth (an order's `phone`), and phone numbers inside free text.
 * Pure; the input is not modified. The projection keeps the events' order.
 */
export function projectPublic(
  events: readonly ProjectableEvent[],
  options: ProjectionOptions = {},
): PublicProjection {
  const obligations = [...new Set([...runObligations(events), ...(options.obligations ?? [])])];
  const maskPhone = obligations.includes(MASK_PHONE_OBLIGATION);
  const rules = options.fieldRules ?? DEFAULT_FIELD_RULES;
  const out: PublicEvent[] = [];
  const omitted: number[] = [];
  for (const e of events) {
    if (e.dataClassification === 'restricted') {
      omitted.push(e.sequence);
      continue;
    }
    const base = {
      schemaVersion: '1' as const,
      eventId: e.eventId,
      runId: e.runId,
      sequence: e.sequence,
      type: e.type,
      occurredAt: e.occurredAt,
      stepId: e.stepId,
      dataClassification: e.dataClassification,
    };
    if (e.dataClassification === 'confidential') {
      out.push({ ...base, redacted: true, data: { redacted: 'confidential' } });
      continue;
    }
    const walk: Walk = { rules, maskPhone, changed: false };
    const data = project(e.data, walk, false) as Record<string, unknown>;
    out.push({ ...base, redacted: walk.changed, data });
  }
  return {
    events: out,
    omittedSequences: omitted,
    appliedObligations: maskPhone ? [MASK_PHONE_OBLIGATION] : [],
  };
}

/**
 * A value (the arguments of a proposed call, a run's output) as an outside reader may see it: the
 * same field rules and obligations as {@link projectPublic} applies to event data. Pure.
 */
export function projectPublicValue(value: unknown, options: ProjectionOptions = {}): unknown {
  const maskPhone = (options.obligations ?? []).includes(MASK_PHONE_OBLIGATION);
  return project(
    value,
    { rules: options.fieldRules ?? DEFAULT_FIELD_RULES, maskPhone, changed: false },
    false,
  );
}
