import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type HistoryTime = temporal.api.history.v1.IHistoryEvent['eventTime'];

/**
 * What a run's Temporal history says about how it was executed, beyond what the run itself records:
 * how long its tasks waited in their queues, how often the worker side was interrupted, and how many
 * attempts its activities took. Plain numbers, so the metrics stay pure functions of them.
 */
export interface HistoryFacts {
  /** Scheduled → started of each workflow task and each first-attempt activity task, in ms. */
  readonly queueWaitsMs: readonly number[];
  /** Workflow tasks that failed or timed out (a worker lost or crashed mid-task, a replay error). */
  readonly workflowTaskInterruptions: number;
  /** Activities that started, and the attempts they took in all (the recorded start's `attempt` of each). */
  readonly activitiesStarted: number;
  readonly activityAttempts: number;
  /** Activity attempts that timed out (heartbeat or start-to-close: a worker lost mid-call). */
  readonly activityTimeouts: number;
}

function ms(t: HistoryTime): number | undefined {
  if (!t) return undefined;
  const seconds = Number(t.seconds ?? 0);
  return seconds * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/**
 * Read {@link HistoryFacts} from one history (any generation of a run; sum generations yourself).
 * An activity retried after its first attempt waited for its retry backoff too, so only first
 * attempts count as queue waits. Never throws: events without times are skipped.
 */
export function historyFacts(history: History): HistoryFacts {
  const scheduledAt = new Map<string, number>();
  const queueWaitsMs: number[] = [];
  let workflowTaskInterruptions = 0;
  let activitiesStarted = 0;
  let activityAttempts = 0;
  let activityTimeouts = 0;
  for (const e of history.events ?? []) {
    const id = String(e.eventId ?? '');
    const at = ms(e.eventTime);
    if (e.workflowTaskScheduledEventAttributes && at !== undefined) scheduledAt.set(id, at);
    if (e.activityTaskScheduledEventAttributes && at !== undefined) scheduledAt.set(id, at);
    const wfStarted = e.workflowTaskStartedEventAttributes;
    if (wfStarted) {
      const from = scheduledAt.get(String(wfStarted.scheduledEventId ?? ''));
      if (from !== undefined && at !== undefined) queueWaitsMs.push(Math.max(0, at - from));
    }
    const actStarted = e.activityTaskStartedEventAttributes;
    if (actStarted) {
      const attempt = Math.max(1, actStarted.attempt ?? 1);
      activitiesStarted += 1;
      activityAttempts += attempt;
      const from = scheduledAt.get(String(actStarted.scheduledEventId ?? ''));
      if (attempt === 1 && from !== undefined && at !== undefined) queueWaitsMs.push(Math.max(0, at - from));
    }
    if (e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes)
      workflowTaskInterruptions += 1;
    if (e.activityTaskTimedOutEventAttributes) activityTimeouts += 1;
  }
  return { queueWaitsMs, workflowTaskInterruptions, activitiesStarted, activityAttempts, activityTimeouts };
}

/** The facts of several histories (the generations of one run) added up. */
export function sumHistoryFacts(all: readonly HistoryFacts[]): HistoryFacts {
  return {
    queueWaitsMs: all.flatMap((f) => f.queueWaitsMs),
    workflowTaskInterruptions: all.reduce((a, f) => a + f.workflowTaskInterruptions, 0),
    activitiesStarted: all.reduce((a, f) => a + f.activitiesStarted, 0),
    activityAttempts: all.reduce((a, f) => a + f.activityAttempts, 0),
    activityTimeouts: all.reduce((a, f) => a + f.activityTimeouts, 0),
  };
}
