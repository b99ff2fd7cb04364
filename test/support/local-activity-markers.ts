import type { WorkflowHandle } from '@temporalio/client';

/** A local activity's marker in a history (`core_local_activity`), as the fast-path tests read it. */
export interface LocalActivityMarker {
  readonly activityType: string;
  /** The try's attempt number (1 for a first try). */
  readonly attempt: number;
  /** True when the marker records a failure (the try failed or timed out). */
  readonly failed: boolean;
}

/**
 * The local activity markers of a workflow's history, oldest first. Each marker holds the activity
 * type and attempt in its `data` detail (JSON) and, for a failed try, a failure.
 */
export async function localActivityMarkers(handle: WorkflowHandle): Promise<LocalActivityMarker[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_local_activity') return [];
    const data = m.details?.['data']?.payloads?.[0]?.data;
    const parsed = data
      ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string; attempt?: number })
      : {};
    return [
      {
        activityType: parsed.activity_type ?? '',
        attempt: parsed.attempt ?? 0,
        failed: m.failure !== null && m.failure !== undefined,
      },
    ];
  });
}
