import proto from '@temporalio/proto';
import {
  MODEL_CALL_ACTIVITY_TYPES,
  TOOL_CALL_ACTIVITY_TYPES,
} from '../../src/contract/activity-interfaces.js';

/** A model call of either arm (the harness's runs use the second names, bare the first). */
const isModelCall = (type: string | null | undefined): boolean =>
  MODEL_CALL_ACTIVITY_TYPES.includes(type ?? '');
/** A tool call of either arm. */
const isToolCall = (type: string | null | undefined): boolean =>
  TOOL_CALL_ACTIVITY_TYPES.includes(type ?? '');

const { temporal } = proto;
type History = proto.temporal.api.history.v1.IHistory;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** Where the history stood when step k (0-based: after k finished steps) began. */
export interface StepMark {
  readonly step: number;
  /** Events before the model call of step k+1 was scheduled. */
  readonly events: number;
  /** Encoded bytes of those events. */
  readonly bytes: number;
  readonly timeMs: number;
}

export interface HistoryStats {
  readonly events: number;
  /** Encoded size of the whole history (protobuf), what Temporal's size limit counts. */
  readonly bytes: number;
  readonly modelCalls: number;
  readonly toolCalls: number;
  /** marks[k]: the history when model call k+1 was scheduled (k = 0..modelCalls-1). */
  readonly marks: readonly StepMark[];
  /** Duration of each step: model call k scheduled -> model call k+1 scheduled (server clock). */
  readonly stepLatenciesMs: readonly number[];
  /** First event -> last event (server clock). */
  readonly wallMs: number;
  /** Server-clock durations of the parts of the run, one entry per occurrence (see {@link PHASES}). */
  readonly phases: Record<Phase, number[]>;
}

/** Where the time of a step goes, from history timestamps. */
export const PHASES = ['modelQueue', 'modelRun', 'toolQueue', 'toolRun', 'wftQueue', 'wftRun'] as const;
export type Phase = (typeof PHASES)[number];

function timeMs(e: HistoryEvent): number {
  const t = e.eventTime;
  if (!t) return Number.NaN;
  return Number(t.seconds?.toString() ?? 0) * 1000 + (t.nanos ?? 0) / 1e6;
}

/**
 * The activity type of a local activity that completed (its `core_local_activity` marker, no failure):
 * a fast read, or a model call on a fast route. Undefined for any other event, and for a fast try
 * that failed (the regular activity after it is the call).
 */
function localActivityType(e: HistoryEvent): string | undefined {
  const m = e.markerRecordedEventAttributes;
  if (m?.markerName !== 'core_local_activity' || m.failure) return undefined;
  const data = m.details?.['data']?.payloads?.[0]?.data;
  if (!data) return undefined;
  return (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type;
}

/** Encoded protobuf size of one event. */
export function eventBytes(e: HistoryEvent): number {
  return temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
}

/** Encoded protobuf size of a whole history. */
export function historyBytes(h: History): number {
  return temporal.api.history.v1.History.encode(h).finish().length;
}

/**
 * Count events, bytes, model and tool calls, and the per-step marks and latencies of a bench run. A
 * call that ran as a local activity counts at its marker (recorded when the workflow task that ran it
 * completed), one that ran as an activity at its scheduling.
 */
export function analyzeHistory(h: History): HistoryStats {
  const events = h.events ?? [];
  const marks: StepMark[] = [];
  let bytes = 0;
  let toolCalls = 0;
  const phases: Record<Phase, number[]> = {
    modelQueue: [],
    modelRun: [],
    toolQueue: [],
    toolRun: [],
    wftQueue: [],
    wftRun: [],
  };
  const byId = new Map<string, { type: string; at: number }>();
  let wft = { scheduled: 0, started: 0 };
  events.forEach((e, i) => {
    const scheduled = e.activityTaskScheduledEventAttributes?.activityType?.name;
    const type = scheduled ?? localActivityType(e);
    const at = timeMs(e);
    if (scheduled) byId.set(String(e.eventId), { type: scheduled, at });
    const started = e.activityTaskStartedEventAttributes;
    const done = e.activityTaskCompletedEventAttributes;
    if (started) {
      const s = byId.get(String(started.scheduledEventId));
      if (s && isModelCall(s.type)) phases.modelQueue.push(at - s.at);
      if (s && isToolCall(s.type)) phases.toolQueue.push(at - s.at);
      byId.set(`start:${String(started.scheduledEventId)}`, { type: s?.type ?? '', at });
    }
    if (done) {
      const s = byId.get(`start:${String(done.scheduledEventId)}`);
      if (s && isModelCall(s.type)) phases.modelRun.push(at - s.at);
      if (s && isToolCall(s.type)) phases.toolRun.push(at - s.at);
    }
    if (e.workflowTaskScheduledEventAttributes) wft = { scheduled: at, started: 0 };
    if (e.workflowTaskStartedEventAttributes) {
      phases.wftQueue.push(at - wft.scheduled);
      wft.started = at;
    }
    if (e.workflowTaskCompletedEventAttributes) phases.wftRun.push(at - wft.started);
    if (isModelCall(type)) marks.push({ step: marks.length, events: i, bytes, timeMs: timeMs(e) });
    if (isToolCall(type)) toolCalls += 1;
    bytes += eventBytes(e);
  });
  const stepLatenciesMs: number[] = [];
  for (let i = 1; i < marks.length; i++) stepLatenciesMs.push(marks[i]!.timeMs - marks[i - 1]!.timeMs);
  const first = events[0];
  const last = events[events.length - 1];
  return {
    events: events.length,
    bytes: historyBytes(h),
    modelCalls: marks.length,
    toolCalls,
    marks: marks,
    stepLatenciesMs,
    wallMs: first && last ? timeMs(last) - timeMs(first) : Number.NaN,
    phases,
  };
}

/** Event type names, for diffing the shape of one step between arms. */
export function eventTypeNames(h: History, from: number, to: number): string[] {
  return (h.events ?? [])
    .slice(from, to)
    .map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType));
}
