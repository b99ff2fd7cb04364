import { canonicalJson } from './canonical-json.js';
import type { RunHeader } from './packed-events.js';

/**
 * What the third step format (`callModelV3`, `runToolV3`; packed-events-v3.ts) leaves out of an
 * event's data and ids, by event type. Frozen like the second format's table: workers of different
 * releases may speak the format, so a change here is a new format under new activity names
 * (test/unit/contract/step-format-v3.test.ts pins it).
 *
 * Every value left out is a **default**: a constant of this table, a field of the run header, a field
 * the receiving activity's input has (`input`, the second format's derivation), or the event's own
 * call number. The packer leaves a field out only when the restored event is canonically the same
 * (packed-events-v3.ts checks the round trip), so a default that does not hold costs bytes, never
 * correctness.
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
function defaultsOf(type: string, ctx: CodecContext): Data | undefined {
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

/**
 * The data part of an item: `{}` (everything default), `{ x }` (what is not), or `{ d }` (the data
 * as it is: a default field it lacks, or a round trip that would not give it back exactly).
 */
export function packData(
  type: string,
  data: Data,
  ctx: CodecContext,
): { readonly d?: Data; readonly x?: Data } {
  const dflt = defaultsOf(type, ctx);
  const short = shorten(type, data, ctx.run);
  if (!dflt && short === data) return { d: data };
  const x: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(short)) {
    if (v === undefined) continue;
    if (!dflt || !Object.hasOwn(dflt, k) || canonicalJson(v) !== canonicalJson(dflt[k])) x[k] = v;
  }
  if (dflt && Object.keys(dflt).some((k) => !Object.hasOwn(short, k))) return { d: data };
  if (canonicalJson(unpackData(type, x, ctx)) !== canonicalJson(data)) return { d: data };
  return Object.keys(x).length === 0 ? {} : { x };
}

/** The data of an item packed by {@link packData} without `d`. */
export function unpackData(type: string, x: Data | undefined, ctx: CodecContext): Record<string, unknown> {
  return lengthen(type, { ...defaultsOf(type, ctx), ...x }, ctx.run);
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
