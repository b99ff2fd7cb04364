import { MODEL_CALL_ACTIVITY_TYPES, TOOL_CALL_ACTIVITY_TYPES } from '../../contract/activity-interfaces.js';
import type { PrincipalRegistry } from '../../contract/principals.js';

/** A tool activity's completed result as the history records it. */
export interface HistoryToolResult {
  readonly seq: number;
  readonly tool: string;
  readonly status: string;
  readonly attempt: number | undefined;
  readonly output: unknown;
  readonly externalId: string | undefined;
  readonly artifacts: readonly {
    readonly id: string;
    readonly data: unknown;
    readonly provenance: unknown;
  }[];
}

/** A decision a person sent (a signal or an accepted update) with its payload and when it arrived. */
export interface HistoryDecision {
  readonly name: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly atMs: number;
}

/** What the verifier reads from a run's Temporal history (JSON form, `historyToJSON`). */
export interface HistoryFacts {
  readonly firstExecutionRunId: string | undefined;
  readonly toolResults: readonly HistoryToolResult[];
  readonly decisions: readonly HistoryDecision[];
  /** Registries the run loaded (results of its local activities), by digest. */
  readonly registries: ReadonlyMap<string, PrincipalRegistry>;
  /** The status the workflow returned (`undefined` while running, or when it did not complete). */
  readonly terminalStatus: string | undefined;
  /** Payloads the verifier could not read (a codec encrypted them). */
  readonly unreadable: number;
  /**
   * Signed chain heads the workers returned: the event-append activity's (activity results and local
   * activity markers, with their interval heads) and a write's commit-point heads (its tool result).
   */
  readonly heads: readonly string[];
  /** Start features and patch ids the run took (its start memo's `harnessFeatures`, its patch markers). */
  readonly features: ReadonlySet<string>;
}

type Json = Record<string, unknown>;
const DECISION_SIGNALS = new Set(['approve', 'reject', 'confirm', 'reconcile', 'provideInput', 'cancelRun']);

/**
 * Read the facts the checks need from a history in the SDK's JSON form. Payloads are read when they
 * are `json/plain`; any other encoding (a codec) counts as unreadable and the checks that need it fail
 * with their `…unreadable` code. Never throws on a malformed history: what cannot be read is left out.
 */
export function historyFacts(history: Json): HistoryFacts {
  const events = Array.isArray(history.events) ? (history.events as Json[]) : [];
  const scheduled = new Map<string, { type: string; input: unknown }>();
  const toolResults: HistoryToolResult[] = [];
  const decisions: HistoryDecision[] = [];
  const registries = new Map<string, PrincipalRegistry>();
  let firstExecutionRunId: string | undefined;
  let terminalStatus: string | undefined;
  let unreadable = 0;
  const heads: string[] = [];
  const features = new Set<string>();
  const collectHeads = (value: unknown) => {
    if (!isObject(value) || !Array.isArray(value.heads)) return;
    for (const h of value.heads as unknown[]) if (typeof h === 'string') heads.push(h);
  };
  const collectHead = (value: unknown) => {
    collectHeads(value);
    if (isObject(value) && typeof value.head === 'string') heads.push(value.head);
  };
  /** The value of `payloads[index]`, or with `field` of a memo's `fields[field]` (one payload). */
  const read = (payloads: unknown, index = 0, field?: string): unknown => {
    const list = (payloads as { payloads?: unknown[] } | undefined)?.payloads;
    const p =
      field !== undefined
        ? ((payloads as Json | undefined)?.[field] as Json | undefined)
        : Array.isArray(list)
          ? (list[index] as Json | undefined)
          : undefined;
    if (p === undefined) return undefined;
    const value = payloadValue(p);
    if (value === UNREADABLE) unreadable += 1;
    return value === UNREADABLE ? undefined : value;
  };
  for (const e of events) {
    const at = Date.parse(str(e.eventTime) ?? '');
    const started = e.workflowExecutionStartedEventAttributes as Json | undefined;
    if (started) {
      firstExecutionRunId ??= str(started.firstExecutionRunId) ?? str(started.originalExecutionRunId);
      const listed = read((started.memo as Json | undefined)?.fields, 0, 'harnessFeatures');
      if (Array.isArray(listed)) for (const f of listed) if (typeof f === 'string') features.add(f);
    }
    const sched = e.activityTaskScheduledEventAttributes as Json | undefined;
    if (sched)
      scheduled.set(String(e.eventId), {
        type: str((sched.activityType as Json | undefined)?.name) ?? '',
        input: read(sched.input),
      });
    const done = e.activityTaskCompletedEventAttributes as Json | undefined;
    if (done) {
      const s = scheduled.get(String(done.scheduledEventId));
      if (s?.type === 'recordEvents') collectHead(read(done.result));
      if (s && TOOL_CALL_ACTIVITY_TYPES.includes(s.type)) {
        const input = s.input as Json | undefined;
        const result = read(done.result) as Json | undefined;
        if (input && result) toolResults.push(toolResultOf(input, result));
        collectHeads(result);
      }
      // A model call's interval heads (the events stored with it).
      if (s && MODEL_CALL_ACTIVITY_TYPES.includes(s.type)) collectHeads(read(done.result));
    }
    const marker = e.markerRecordedEventAttributes as Json | undefined;
    if (marker) {
      const patch = read((marker.details as Json | undefined)?.['patch-data']) as Json | undefined;
      if (marker.markerName === 'core_patch' && typeof patch?.id === 'string') features.add(patch.id);
      const result = read((marker.details as Json | undefined)?.result);
      collectRegistry(result, registries);
      collectHead(result);
    }
    const signal = e.workflowExecutionSignaledEventAttributes as Json | undefined;
    if (signal && DECISION_SIGNALS.has(String(signal.signalName))) {
      const payload = read(signal.input);
      if (isObject(payload)) decisions.push({ name: String(signal.signalName), payload, atMs: at });
    }
    const update = e.workflowExecutionUpdateAcceptedEventAttributes as Json | undefined;
    const request = (update?.acceptedRequest as Json | undefined)?.input as Json | undefined;
    if (request) {
      const args = read(request.args);
      // The `decide` update carries `{ signal, payload }`: the same decision as the signal.
      if (request.name === 'decide' && isObject(args) && isObject(args.payload))
        decisions.push({ name: String(args.signal), payload: args.payload, atMs: at });
    }
    const completed = e.workflowExecutionCompletedEventAttributes as Json | undefined;
    if (completed) terminalStatus = str((read(completed.result) as Json | undefined)?.status);
  }
  return {
    firstExecutionRunId,
    toolResults,
    decisions,
    registries,
    terminalStatus,
    unreadable,
    heads,
    features,
  };
}

/**
 * The facts of a run that continued as new: its generations' histories read one by one (oldest
 * first) and put together. The run's first execution and its end are the first's and the last's;
 * results, decisions, heads, registries and features are those of every generation. Never throws.
 */
export function generationsFacts(histories: readonly Json[]): HistoryFacts {
  const all = histories.map(historyFacts);
  const last = all.at(-1);
  return {
    firstExecutionRunId: all[0]?.firstExecutionRunId,
    toolResults: all.flatMap((f) => f.toolResults),
    decisions: all.flatMap((f) => f.decisions),
    registries: new Map(all.flatMap((f) => [...f.registries])),
    terminalStatus: last?.terminalStatus,
    unreadable: all.reduce((n, f) => n + f.unreadable, 0),
    heads: all.flatMap((f) => f.heads),
    features: new Set(all.flatMap((f) => [...f.features])),
  };
}

function toolResultOf(input: Json, result: Json): HistoryToolResult {
  const artifacts = Array.isArray(result.artifacts) ? (result.artifacts as Json[]) : [];
  return {
    seq: Number(input.seq),
    tool: String(input.tool),
    status: String(result.status),
    attempt: typeof result.attempt === 'number' ? result.attempt : undefined,
    output: result.output,
    externalId: str(result.externalId),
    artifacts: artifacts.map((a) => ({ id: String(a.id), data: a.data, provenance: a.provenance })),
  };
}

/** A local activity's result that carries a principal registry (`{ digest, registry }`, top level or under `principals`). */
function collectRegistry(value: unknown, into: Map<string, PrincipalRegistry>): void {
  if (!isObject(value)) return;
  const holder = isObject(value.principals) ? value.principals : value;
  const registry = holder.registry;
  if (typeof holder.digest === 'string' && isObject(registry) && Array.isArray(registry.principals))
    into.set(holder.digest, registry as unknown as PrincipalRegistry);
}

const UNREADABLE = Symbol('unreadable');

function payloadValue(p: Json): unknown {
  const encoding = fromBase64((p.metadata as Json | undefined)?.encoding);
  const data = fromBase64(p.data) ?? '';
  if (encoding === 'binary/null') return undefined;
  if (encoding !== 'json/plain') return UNREADABLE;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return UNREADABLE;
  }
}

function fromBase64(value: unknown): string | undefined {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
