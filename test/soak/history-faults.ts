import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';

const { temporal } = proto;
const EventType = temporal.api.enums.v1.EventType;
const TimeoutType = temporal.api.enums.v1.TimeoutType;

/** What a run's history says about the faults it went through, in counts. */
export interface HistoryFaults {
  /**
   * Activities that timed out, by `<activity type>[<tool>] <timeout type>` (e.g.
   * `runTool[refund.create] HEARTBEAT`): an activity whose worker died is noticed this way.
   */
  readonly activityTimeouts: Record<string, number>;
  /** Activities that failed for good (after their retries, or not retryable), by activity type. */
  readonly activityFailures: Record<string, number>;
  /**
   * Activities Temporal retried, by `<activity type>[<tool>] <cause of the last failed attempt>`
   * (`HEARTBEAT` for a lost attempt, else the failure's type). History keeps only the last failed
   * attempt's cause, so a count is of activities that were retried, not of retries.
   */
  readonly activityRetries: Record<string, number>;
  /** Workflow tasks that timed out (a worker died holding one, or the sticky queue was dead). */
  readonly workflowTaskTimeouts: number;
  /** Workflow tasks that failed. */
  readonly workflowTaskFailures: number;
  readonly events: number;
}

/** The tool a `runTool` / `runToolV2` / `runToolV3` / `resolveLostInvocation` input names, when its payload is plain JSON. */
function toolOf(payload: { data?: Uint8Array | null } | undefined): string | undefined {
  if (!payload?.data) return undefined;
  try {
    const input = JSON.parse(Buffer.from(payload.data).toString('utf8')) as { tool?: unknown };
    return typeof input.tool === 'string' ? input.tool : undefined;
  } catch {
    return undefined;
  }
}

/** The cause of a failed attempt: the timeout type, or the application failure's type. */
function causeOf(failure: proto.temporal.api.failure.v1.IFailure | null | undefined): string {
  if (!failure) return 'unknown';
  const timeout = failure.timeoutFailureInfo?.timeoutType;
  if (timeout !== undefined && timeout !== null)
    return (TimeoutType[timeout] ?? String(timeout)).replace(/^TIMEOUT_TYPE_/, '');
  return failure.applicationFailureInfo?.type ?? (failure.cause ? causeOf(failure.cause) : 'failure');
}

function bump(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** Read the run's whole history and count its faults. @throws when the history cannot be fetched. */
export async function historyFaults(handle: WorkflowHandle): Promise<HistoryFaults> {
  const history = await handle.fetchHistory();
  const scheduled = new Map<string, string>();
  const out = {
    activityTimeouts: {} as Record<string, number>,
    activityFailures: {} as Record<string, number>,
    activityRetries: {} as Record<string, number>,
    workflowTaskTimeouts: 0,
    workflowTaskFailures: 0,
    events: history.events?.length ?? 0,
  };
  const nameOf = (id: unknown): string => scheduled.get(String(id)) ?? '?';
  for (const e of history.events ?? []) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const a = e.activityTaskScheduledEventAttributes;
        const type = a?.activityType?.name ?? '?';
        const tool = toolOf(a?.input?.payloads?.[0]);
        scheduled.set(String(e.eventId), tool === undefined ? type : `${type}[${tool}]`);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const a = e.activityTaskStartedEventAttributes;
        if ((a?.attempt ?? 1) > 1)
          bump(out.activityRetries, `${nameOf(a?.scheduledEventId)} ${causeOf(a?.lastFailure)}`);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: {
        const a = e.activityTaskTimedOutEventAttributes;
        const timeout = a?.failure?.timeoutFailureInfo?.timeoutType ?? 0;
        const kind = (TimeoutType[timeout] ?? String(timeout)).replace(/^TIMEOUT_TYPE_/, '');
        bump(out.activityTimeouts, `${nameOf(a?.scheduledEventId)} ${kind}`);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
        bump(out.activityFailures, nameOf(e.activityTaskFailedEventAttributes?.scheduledEventId));
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
        out.workflowTaskTimeouts++;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
        out.workflowTaskFailures++;
        break;
      default:
        break;
    }
  }
  return out;
}
