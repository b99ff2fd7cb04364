import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';

/** One history event reduced to what the fault tests look at. */
export interface HistoryEntry {
  readonly type: string;
  /** Worker identity of a started workflow or activity task, when the event carries one. */
  readonly identity?: string;
  /** Activity type of a scheduled activity. */
  readonly activityType?: string;
  /** Marker name of a recorded marker (patches). */
  readonly markerName?: string;
  /** Patch id of a `patched()` marker. */
  readonly patchId?: string;
  /** Attempt of a started activity task (written when the attempt ends: only the last attempt shows). */
  readonly attempt?: number;
  /** Timeout type of an activity or workflow task timeout. */
  readonly timeoutType?: string;
  /** Failure message of a failed activity (with its causes' messages, outermost first). */
  readonly failureMessage?: string;
}

const { temporal } = proto;
const EventType = temporal.api.enums.v1.EventType;
const TimeoutType = temporal.api.enums.v1.TimeoutType;

function patchIdOf(data: Uint8Array | null | undefined): { patchId?: string } {
  if (!data) return {};
  const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { id?: unknown };
  return typeof parsed.id === 'string' ? { patchId: parsed.id } : {};
}

interface FailureLike {
  readonly message?: string | null;
  readonly cause?: FailureLike | null;
}

function failureOf(failure: FailureLike | null | undefined): { failureMessage?: string } {
  const messages: string[] = [];
  for (let f = failure; f && messages.length < 8; f = f.cause) if (f.message) messages.push(f.message);
  return messages.length > 0 ? { failureMessage: messages.join(': ') } : {};
}

/** The workflow's history as a list of {@link HistoryEntry}. */
export async function historyOf(handle: WorkflowHandle): Promise<HistoryEntry[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map((e) => {
    const type = EventType[e.eventType ?? 0] ?? String(e.eventType);
    const identity =
      e.workflowTaskStartedEventAttributes?.identity ??
      e.activityTaskStartedEventAttributes?.identity ??
      undefined;
    const timeout =
      e.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo?.timeoutType ??
      e.workflowTaskTimedOutEventAttributes?.timeoutType;
    return {
      type,
      ...(identity ? { identity } : {}),
      ...(e.activityTaskScheduledEventAttributes?.activityType?.name
        ? { activityType: e.activityTaskScheduledEventAttributes.activityType.name }
        : {}),
      ...patchIdOf(e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data),
      ...(e.markerRecordedEventAttributes?.markerName
        ? { markerName: e.markerRecordedEventAttributes.markerName }
        : {}),
      ...(e.activityTaskStartedEventAttributes?.attempt
        ? { attempt: e.activityTaskStartedEventAttributes.attempt }
        : {}),
      ...(timeout !== undefined && timeout !== null ? { timeoutType: TimeoutType[timeout] } : {}),
      ...failureOf(e.activityTaskFailedEventAttributes?.failure),
    };
  });
}

/** Identities of the workers that started workflow tasks, in order, without repeats. */
export function workflowTaskWorkers(entries: readonly HistoryEntry[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.type === 'EVENT_TYPE_WORKFLOW_TASK_STARTED' && e.identity && out[out.length - 1] !== e.identity)
      out.push(e.identity);
  }
  return out;
}

const ACTIVITY_ENDS = new Set([
  'EVENT_TYPE_ACTIVITY_TASK_COMPLETED',
  'EVENT_TYPE_ACTIVITY_TASK_FAILED',
  'EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT',
  'EVENT_TYPE_ACTIVITY_TASK_CANCELED',
]);

/** Activities scheduled and not yet ended. */
export function openActivities(entries: readonly HistoryEntry[]): number {
  const scheduled = entries.filter((e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').length;
  return scheduled - entries.filter((e) => ACTIVITY_ENDS.has(e.type)).length;
}
