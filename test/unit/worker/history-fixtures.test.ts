import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/devserver/config.js';
import { loadHistoryFixtures, recordedWorkflowId } from '../../../src/worker/history-fixtures.js';

const fixturesDir = join(projectRoot, 'test', 'fixtures', 'histories');

describe('recordedWorkflowId', () => {
  it('names the id of the start event', () => {
    const history = { events: [{ workflowExecutionStartedEventAttributes: { workflowId: 'refund-1' } }] };
    expect(recordedWorkflowId(history)).toBe('refund-1');
  });

  it('is undefined for a history whose start event does not name it, or without events', () => {
    expect(recordedWorkflowId({ events: [{ workflowExecutionStartedEventAttributes: {} }] })).toBeUndefined();
    expect(
      recordedWorkflowId({ events: [{ workflowExecutionStartedEventAttributes: { workflowId: '' } }] }),
    ).toBeUndefined();
    expect(recordedWorkflowId({ events: [] })).toBeUndefined();
  });

  it('every committed fixture replays under the id it was recorded with, not its file name', () => {
    for (const f of loadHistoryFixtures(fixturesDir)) {
      expect(f.workflowId, f.name).toBe(recordedWorkflowId(f.history));
      expect(f.workflowId, f.name).not.toBe(f.name);
    }
  });

  it('a history that does not name its id loads under its file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'history-fixtures-'));
    writeFileSync(
      join(dir, 'legacy-v1.json'),
      JSON.stringify({
        events: [
          {
            eventId: '1',
            eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
            workflowExecutionStartedEventAttributes: { workflowType: { name: 'agentRun' } },
          },
        ],
      }),
    );
    expect(loadHistoryFixtures(dir).map((f) => [f.name, f.workflowId])).toEqual([['legacy-v1', 'legacy-v1']]);
  });
});
