import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolActivities } from '../../../src/activities/tool-activities.js';
import type { OperatorResolutionActivityInput as OperatorResolutionInput } from '../../../src/contract/activity-interfaces.js';
import { NO_EVENTS } from '../../../src/contract/packed-events.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { openEvidenceStore, type EvidenceStore } from '../../../src/activities/store/index.js';
import { intent, newRunId, result } from './store/fixtures.js';

/** recordOperatorResolution against a real SQLite evidence store. */
describe('recordOperatorResolution activity', () => {
  let dir: string;
  let store: EvidenceStore;
  let activities: ReturnType<typeof createToolActivities>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'operator-resolution-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
    activities = createToolActivities({ registry: new ToolRegistry(), store, identity: 'test' });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const decision = (runId: string, over: Partial<OperatorResolutionInput> = {}): OperatorResolutionInput => ({
    call: {
      runId,
      seq: 1,
      tool: 'refund.create',
      version: 'v1',
      effect: 'write',
      args: { orderId: 'O-1' },
      argsDigest: 'sha256:x',
      idempotencyKey: `${runId}/1`,
      events: NO_EVENTS,
    },
    outcome: 'succeeded',
    actor: 'ops@example.com',
    externalId: 'RF-9',
    evidence: { ticket: 'OPS-1' },
    ...over,
  });

  it("records the person's decision as the invocation's result, source operator, idempotently", async () => {
    const run = newRunId();
    await store.recordIntent(intent(run, 1, { attempt: 1 }));
    expect(await activities.recordOperatorResolution(decision(run))).toEqual({ kind: 'recorded' });
    expect(await activities.recordOperatorResolution(decision(run))).toEqual({ kind: 'recorded' });
    const record = await store.getInvocation(run, 1);
    expect(record?.results).toHaveLength(1);
    expect(record?.result).toMatchObject({
      status: 'succeeded',
      externalId: 'RF-9',
      source: 'operator',
      evidence: { actor: 'ops@example.com', ticket: 'OPS-1' },
    });
  });

  it('maps failed and not_applied to the stored statuses', async () => {
    for (const [outcome, status] of [
      ['failed', 'failed_terminal'],
      ['not_applied', 'not_applied'],
    ] as const) {
      const run = newRunId();
      await store.recordIntent(intent(run, 1));
      await activities.recordOperatorResolution(decision(run, { outcome, externalId: undefined }));
      expect((await store.getInvocation(run, 1))?.result).toMatchObject({ status, source: 'operator' });
    }
  });

  it("returns the executor's result when one was recorded first, and records nothing", async () => {
    const run = newRunId();
    await store.recordIntent(intent(run, 1));
    await store.recordResult(result(run, 1, { externalId: 'RF-real' }), []);
    const got = await activities.recordOperatorResolution(decision(run, { outcome: 'not_applied' }));
    expect(got).toMatchObject({
      kind: 'result_recorded',
      result: { status: 'succeeded', externalId: 'RF-real' },
    });
    expect((await store.getInvocation(run, 1))?.results).toHaveLength(1);
    expect((await store.getInvocation(run, 1))?.result).toMatchObject({ source: 'executor' });
  });

  it('fails without retry when the invocation has no intent', async () => {
    await expect(activities.recordOperatorResolution(decision(newRunId()))).rejects.toMatchObject({
      type: 'store.no_intent',
      nonRetryable: true,
    });
  });
});
