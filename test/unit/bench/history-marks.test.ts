import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { analyzeHistory } from '../../../bench/lib/history.js';

const { temporal } = proto;
/** An event as plain data (`History.fromObject` turns numbers into the proto's longs). */
type HistoryEvent = Record<string, unknown>;

const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

function scheduled(id: number, ms: number, activityType: string): HistoryEvent {
  return {
    eventId: id,
    eventTime: at(ms),
    activityTaskScheduledEventAttributes: { activityType: { name: activityType } },
  };
}

/** A local activity's marker as the SDK core records it (its activity type in the `data` detail). */
function marker(id: number, ms: number, activityType: string, failed = false): HistoryEvent {
  const data = new TextEncoder().encode(JSON.stringify({ activity_type: activityType, attempt: 1 }));
  return {
    eventId: id,
    eventTime: at(ms),
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      details: { data: { payloads: [{ data }] } },
      ...(failed ? { failure: { message: 'Activity timed out' } } : {}),
    },
  };
}

/** bench/lib/history.ts: a call counts where it ran, an activity's scheduling or a local activity's marker. */
describe('bench history marks', () => {
  it('counts model and tool calls run as local activities at their markers, not a failed fast try', () => {
    const history = temporal.api.history.v1.History.fromObject({
      events: [
        marker(1, 1_000, 'callModelV2'),
        marker(2, 1_000, 'runToolV2'),
        marker(3, 1_040, 'callModelV2', true),
        scheduled(4, 1_050, 'callModelV2'),
        marker(5, 1_090, 'runToolV2'),
        marker(6, 1_100, 'loadToolSnapshot'),
        marker(7, 1_120, 'callModelV2'),
      ],
    });
    const stats = analyzeHistory(history);
    expect(stats.modelCalls).toBe(3);
    expect(stats.toolCalls).toBe(2);
    expect(stats.stepLatenciesMs).toEqual([50, 70]);
  });
});
