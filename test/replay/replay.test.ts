import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it, inject } from 'vitest';
import { projectRoot } from '../../src/devserver/config.js';
import { loadHistoryFixtures, recordedWorkflowId } from '../../src/worker/history-fixtures.js';

const fixturesDir = join(projectRoot, 'test', 'fixtures', 'histories');

/**
 * Every committed history replays against the current build. A non-determinism (a workflow change not
 * guarded by patched()) makes this suite fail.
 */
describe('recorded histories replay against this build', () => {
  const fixtures = loadHistoryFixtures(fixturesDir);

  it('has fixtures to replay', () => {
    expect(fixtures.length).toBeGreaterThan(0);
  });

  it('replays them under the bundle compiled to ES2022 (native object spread, no helpers)', () => {
    // What the fixtures below replay against: the harness's bundle (src/worker/bundle.ts), not the
    // SDK's default ES2017 one, whose object spreads are helper calls.
    const code = readFileSync(inject('workflowBundlePath'), 'utf8');
    expect(code).toContain('src/workflows/runner/');
    expect(code).not.toMatch(/function _object_spread\(/);
    expect(code).not.toMatch(/function _define_property\(/);
  });

  for (const fixture of fixtures) {
    it(`replays ${fixture.name}`, async () => {
      await Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') }, replayName: fixture.name },
        fixture.history,
        fixture.workflowId,
      );
    });
  }

  it('a signed decision replays only under the workflow id it was recorded with', async () => {
    // The decision's token is bound to the run's workflow id: under another id it is refused on replay,
    // the wait goes on, and the timer the decision cancelled has no command. Not a workflow change:
    // replay under the recorded id (as above).
    const rejected = fixtures.find((f) => f.name === 'refund-graph-signed-rejected-v1');
    expect(rejected).toBeDefined();
    expect(rejected!.workflowId).toBe(recordedWorkflowId(rejected!.history));
    expect(rejected!.workflowId).not.toBe(rejected!.name);
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') } },
        rejected!.history,
        'another-id',
      ),
    ).rejects.toMatchObject({
      name: 'DeterminismViolationError',
      message: expect.stringMatching(
        /No command scheduled for event HistoryEvent\(id: \d+, TimerCanceled\)/,
      ) as string,
    });
  });

  it('detects a non-deterministic change', async () => {
    const plumbing = fixtures.find((f) => f.name.startsWith('plumbing'));
    expect(plumbing).toBeDefined();
    const tampered = structuredClone(plumbing!.history);
    const scheduled = tampered.events?.find((e) => e.activityTaskScheduledEventAttributes);
    scheduled!.activityTaskScheduledEventAttributes!.activityType = { name: 'somethingElse' };
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') } },
        tampered,
        'tampered',
      ),
    ).rejects.toMatchObject({ name: 'DeterminismViolationError' });
  });
});
