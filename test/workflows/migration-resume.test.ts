import { readFileSync } from 'node:fs';
import { decide } from '../support/decisions.js';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { RunStateV1Schema } from '../../src/workflows/migration/index.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { CarriedRun } from '../../src/workflows/temporal/carried-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import {
  createHarnessFixture,
  refundRunInput,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';

const FIXTURE = new URL('../fixtures/carried-state/run-state-v1.json', import.meta.url);

/** The committed v1 envelope, as continue-as-new would hand it to `workflowId` on this worker. */
function carriedV1(workflowId: string, h: HarnessFixture): CarriedRun {
  const raw = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { schemaVersion: 1; state: { runId: string } };
  const text = JSON.stringify(raw).replaceAll(raw.state.runId, workflowId);
  const { schemaVersion, state } = JSON.parse(text) as { schemaVersion: 1; state: Record<string, unknown> };
  return {
    schemaVersion,
    state: RunStateV1Schema.parse({
      ...state,
      versions: {
        ...(state.versions as object),
        toolRegistryDigest: h.composition.registry.snapshot().digest,
        configDigest: h.composition.configDigest,
      },
      startedAt: new Date().toISOString(),
    }),
  };
}

describe('a run carried with run state version 1 resumes on this build (version 2)', () => {
  let h: HarnessFixture;
  let n = 0;
  beforeAll(async () => {
    h = await createHarnessFixture('migration-resume');
  });
  afterAll(async () => {
    await h?.close();
  });

  // A run from before per-tool pins: its input pins the whole registry, as its carried state does.
  const input = (): AgentRunInput =>
    refundRunInput({
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
      toolRegistryDigest: h.composition.registry.snapshot().digest,
      configDigest: h.composition.configDigest,
    });
  // As an earlier generation would: continue as new into agentRun with the carried state.
  const start = (workflowId: string, carried: unknown) =>
    h.t.client.workflow.start('continueIntoAgentRun', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [input(), carried],
    });

  it('migrates the carried v1 state, completes succeeded, and reports version 2 with its obligations', async () => {
    const workflowId = `migration-resume-${Date.now()}-${++n}`;
    const carried = carriedV1(workflowId, h);
    expect(carried.state.schemaVersion).toBe(1);
    const handle = await start(workflowId, carried);
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    // Migrated: version 2; the carried run's progress is kept (invocations 1-2, facts, completed nodes).
    expect(waiting.schemaVersion).toBe(2);
    expect(waiting.invocations.slice(0, 2).map((i) => [i.seq, i.tool])).toEqual([
      [1, 'order.read'],
      [2, 'logistics.read'],
    ]);
    expect(waiting.facts).toEqual({ 'order.owner_verified': true });
    expect(waiting.completedSteps.slice(0, 6)).toEqual(carried.state.completedSteps);
    // version 1 kept no obligations; the read after the resume (policy.search.refund) added mask.phone
    expect(waiting.obligations).toEqual(['mask.phone']);
    await decide(handle, 'approve', {}, waiting);
    const result = (await handle.result()) as AgentRunResult;
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
    const view = await handle.query<RunView>('state');
    expect(view.schemaVersion).toBe(2);
    expect(view.obligations).toEqual(['mask.phone', 'verify.order.owner_verified']);
    expect(view.invocations.map((i) => i.seq)).toEqual([1, 2, 3, 4, 5]);
    // Events continue the carried sequence: the first stored one is the carried nextEventSeq.
    const events = await h.composition.store.listEvents(workflowId);
    expect(events[0]?.seq).toBe(carried.state.nextEventSeq);
    expect(events.some((e) => e.type === 'run.created')).toBe(false);
  });

  it('a carried state of a newer version fails closed with migration.version_too_new', async () => {
    const workflowId = `migration-too-new-${Date.now()}-${++n}`;
    const carried = carriedV1(workflowId, h);
    const handle = await start(workflowId, { ...carried, state: { ...carried.state, schemaVersion: 3 } });
    const err: unknown = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as {
      type?: string;
      message: string;
      nonRetryable?: boolean;
    };
    expect(cause.type).toBe('migration.version_too_new');
    expect(cause.message).toContain('run_state version 3 is newer than this build');
    expect(cause.nonRetryable).toBe(true);
  });
});
