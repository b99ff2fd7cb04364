import { canonicalJson } from './canonical-json.js';
import type { RunHeader } from './packed-events.js';

/**
 * What the third step format (`callModelV3`, `runToolV3`; packed-events-v3.ts) leaves out of an
 * event's data and ids, by event type. Frozen like the second format's table: workers of different
 * releases may speak the format, so a change here is a new format under new activity names
 * (test/unit/activities/step-input-v3.test.ts, "the format is frozen", pins it).
 *
 * Every value left out is a **default**: a constant of this table, a field of the run header, a field
 * the receiving activity's input has (`input`, the second format's derivation), or the event's own
 * call number. The packer leaves a field out only when the restored event is canonically the same
 * ({@link packData} decides it by checks proven equal to running the round trip), so a default that
 * does not hold costs bytes, never correctness.
 */

/** What a codec knows besides the event: the batch's header and what the activity's input says. */
export interface CodecContext {
  readonly run: RunHeader;
  /** The fields the receiving activity's input gives for this type (packed-events-by-ref.ts). */
  readonly input: Readonly<Record<string, unknown>> | undefined;
}

type Data = Readonly<Record<string, unknown>>;

/** Default field values by type, beyond what the activity's input gives (frozen). */
function typeDefaults(type: string, run: RunHeader): Data | undefined {
  switch (type) {
    case 'model.completed':
      return { purpose: 'decide', stopReason: 'tool_calls', replayed: false, activityAttempt: 1 };
    case 'policy.decided':
      // A dispatch the run's own (code) policy allowed without obligations.
      return {
        stage: 'dispatch',
        decision: 'allow',
        policyVersion: run.versions.policy,
        obligations: [],
        rules: { source: 'code', policy: run.versions.policy },
      };
    case 'tool.completed':
      return { status: 'succeeded', externalId: null, resolvedBy: null, activityAttempt: 1 };
    default:
      return undefined;
  }
}

/** The defaults of one type in one context: the table's, then the input's (they win). */
export function dataDefaults(type: string, ctx: CodecContext): Data | undefined {
  const table = typeDefaults(type, ctx.run);
  if (!table) return ctx.input;
  return ctx.input ? { ...table, ...ctx.input } : table;
}

/** The model call's own context package id (plan-request.ts): `<runId>:ctx<callSeq>`. */
const packageIdOf = (run: RunHeader, callSeq: unknown): string => `${run.runId}:ctx${String(callSeq)}`;

/**
 * Values the format writes shorter, by field: a `model.completed` context package named by the call
 * (only its digest travels), a `tool.proposed` proposal id under the run's id (`:<rest>`).
 */
function shorten(type: string, data: Data, run: RunHeader): Data {
  if (type === 'model.completed') {
    const c = data.context as { packageId?: unknown; digest?: unknown } | undefined;
    if (c && typeof c.digest === 'string' && c.packageId === packageIdOf(run, data.callSeq))
      return { ...data, context: c.digest };
  }
  if (type === 'tool.proposed' && typeof data.proposalId === 'string') {
    if (data.proposalId.startsWith(`${run.runId}:`))
      return { ...data, proposalId: data.proposalId.slice(run.runId.length) };
  }
  return data;
}

/** Inverse of {@link shorten}. */
function lengthen(type: string, data: Record<string, unknown>, run: RunHeader): Record<string, unknown> {
  if (type === 'model.completed' && typeof data.context === 'string')
    return { ...data, context: { packageId: packageIdOf(run, data.callSeq), digest: data.context } };
  if (type === 'tool.proposed' && typeof data.proposalId === 'string' && data.proposalId.startsWith(':'))
    return { ...data, proposalId: run.runId + data.proposalId };
  return data;
}

/** Equal as JSON: the same primitive, or containers with the same canonical JSON. */
function sameJson(v: unknown, d: unknown): boolean {
  if (v === d) return true;
  return typeof v === 'object' && v !== null && typeof d === 'object' && d !== null
    ? canonicalJson(v) === canonicalJson(d)
    : false;
}

/**
 * Would {@link lengthen} change data that {@link shorten} left as it was? Then the round trip would not
 * give it back: a `model.completed` whose context is already a string, a `tool.proposed` whose
 * proposal id already starts with `:`.
 */
function lengthensUnshortened(type: string, data: Data): boolean {
  if (type === 'model.completed') return typeof data.context === 'string';
  if (type === 'tool.proposed') return typeof data.proposalId === 'string' && data.proposalId.startsWith(':');
  return false;
}

/**
 * Does a shortened `model.completed` context hold more than its package id and digest (fields
 * {@link lengthen} would not give back)?
 */
function contextHoldsMore(type: string, data: Data): boolean {
  if (type !== 'model.completed') return false;
  const c = data.context as Readonly<Record<string, unknown>>;
  for (const k of Object.keys(c)) if (k !== 'packageId' && k !== 'digest' && c[k] !== undefined) return true;
  return false;
}

/**
 * The data part of an item: `{}` (everything default), `{ x }` (what is not), or `{ d }` (the data
 * as it is: a default field it lacks, or a round trip that would not give it back exactly).
 *
 * The round trip ({@link unpackData}) gives back data canonically equal to `data` exactly when none
 * of these holds, so they are checked instead of running it per event (proven against the round
 * trip itself in test/unit/contract/event-codecs-v3.test.ts): a default field the data lacks, or has
 * as `undefined`; data left as it was that {@link lengthen} would change; a shortened context with
 * more fields than its package id and digest.
 */
export function packData(
  type: string,
  data: Data,
  ctx: CodecContext,
): { readonly d?: Data; readonly x?: Data } {
  const dflt = dataDefaults(type, ctx);
  const short = shorten(type, data, ctx.run);
  if (short === data ? !dflt || lengthensUnshortened(type, data) : contextHoldsMore(type, data))
    return { d: data };
  const x: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(short)) {
    if (v === undefined) {
      if (dflt && Object.hasOwn(dflt, k) && dflt[k] !== undefined) return { d: data };
      continue;
    }
    if (!dflt || !Object.hasOwn(dflt, k) || !sameJson(v, dflt[k])) x[k] = v;
  }
  if (dflt) for (const k in dflt) if (Object.hasOwn(dflt, k) && !Object.hasOwn(short, k)) return { d: data };
  return Object.keys(x).length === 0 ? {} : { x };
}

/** The data of an item packed by {@link packData} without `d`. */
export function unpackData(type: string, x: Data | undefined, ctx: CodecContext): Record<string, unknown> {
  return lengthen(type, { ...dataDefaults(type, ctx), ...x }, ctx.run);
}

/**
 * The step and attempt ids an event of this type has by default, from its own data: a goal model
 * turn's (`model-<callSeq>`, `model-<callSeq>#1`) or tool call's (`tool-<seq>`, `tool-<seq>#1`;
 * runner/step-attempts.ts). Undefined for other types: their ids default to null.
 */
export function defaultIds(type: string, data: Data): readonly [string, string] | undefined {
  const model = type === 'model.started' || type === 'model.completed';
  const tool = type === 'tool.authorized' || type === 'tool.completed';
  const n = model ? data.callSeq : tool ? data.seq : undefined;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) return undefined;
  const step = `${model ? 'model' : 'tool'}-${n}`;
  return [step, `${step}#1`];
}
