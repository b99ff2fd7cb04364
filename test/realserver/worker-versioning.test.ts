import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RefundComposition } from '../../apps/refund/composition.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import { decide } from '../support/decisions.js';
import { refundRunInput, waitForState } from '../support/harness.js';
import { historyOf, workflowTaskWorkers } from '../support/history.js';
import { testStartSigner } from '../support/principals.js';
import { startWorker, uniqueTaskQueue } from '../support/temporal.js';
import { tierComposition } from './composition.js';
import { connectTier, realServer, temporalCli, tier, type TierConnections } from './tier.js';

const VersioningBehavior = proto.temporal.api.enums.v1.VersioningBehavior;

/**
 * Issue 37 (d): Worker Versioning on the real server (mTLS, PostgreSQL, 4 shards), the way
 * docs/rolling-deploys.md rolls out workflow code: v1 current; a refund run starts on v1 and waits
 * for its approval (PINNED); v2 joins and is ramped to 50 % with `temporal worker deployment
 * set-ramping-version`, then made current. New runs follow the ramp; the pinned run finishes on v1.
 */
describe.skipIf(!realServer())('real server: a Worker Versioning ramp', () => {
  const TAG = Date.now().toString(36);
  const DEPLOYMENT = `harness-rs-${TAG}`;
  const taskQueue = uniqueTaskQueue('rs-versioning');
  let t: TierConnections;
  let composition: RefundComposition;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    t = await connectTier('versioning-test');
    composition = await tierComposition('versioning');
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    await composition?.close();
    await t?.close();
  });

  async function versionWorker(buildId: string): Promise<void> {
    const worker = await createHarnessWorker({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue,
      composition: { ...composition, identity: `worker-${buildId}` },
      workflowBundle: { codePath: tier().bundlePath },
      deployment: {
        version: { deploymentName: DEPLOYMENT, buildId },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    });
    stops.push(startWorker(worker));
  }

  /** Retries an operator command until the server takes it (a version exists once its worker polled). */
  async function operator(args: string[], timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await temporalCli(['worker', 'deployment', ...args, '--deployment-name', DEPLOYMENT, '--yes']);
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async function buildOf(handle: WorkflowHandle): Promise<{ behavior: string; buildId: string | undefined }> {
    const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
    return {
      behavior:
        info?.behavior === VersioningBehavior.VERSIONING_BEHAVIOR_PINNED ? 'PINNED' : String(info?.behavior),
      buildId: info?.deploymentVersion?.buildId ?? undefined,
    };
  }

  function start(workflowId: string, input: Partial<AgentRunInput> & Pick<AgentRunInput, 'task'>) {
    const signer = testStartSigner(input);
    return startAgentRun(t.client, {
      taskQueue,
      workflowId,
      input: refundRunInput(input),
      ...(signer !== undefined ? { signer } : {}),
    });
  }
  const answer = { profile: { name: 'support.answer', version: 'v1' }, modelRoute: 'scripted/answer' };

  it('v2 ramped to 50 % then current: new runs follow, a pinned run in flight finishes on v1', async () => {
    const [v1, v2] = [`${TAG}-v1`, `${TAG}-v2`];
    await versionWorker(v1);
    await operator(['set-current-version', '--build-id', v1]);
    const inflight = await start(`rs-wv-inflight-${TAG}`, {
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
    });
    const waiting = await waitForState(inflight, (v) => v.status === 'awaiting_confirmation', 60_000);
    expect(await buildOf(inflight)).toEqual({ behavior: 'PINNED', buildId: v1 });

    await versionWorker(v2);
    await operator(['set-ramping-version', '--build-id', v2, '--percentage', '50']);
    const ramped = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const h = await start(`rs-wv-ramp-${TAG}-${i}`, { ...answer, task: { message: 'hello' } });
        expect((await h.result()).status).toBe('succeeded');
        return buildOf(h);
      }),
    );
    const onV2 = ramped.filter((v) => v.buildId === v2).length;
    console.error(`[realserver] ramp at 50 %: ${onV2} of 12 new runs on ${v2}`);
    expect(onV2).toBeGreaterThan(0);
    expect(onV2).toBeLessThan(12);
    expect(ramped.every((v) => v.behavior === 'PINNED' && (v.buildId === v1 || v.buildId === v2))).toBe(true);

    await operator(['set-current-version', '--build-id', v2]);
    for (let i = 0; i < 3; i++) {
      const h = await start(`rs-wv-current-${TAG}-${i}`, { ...answer, task: { message: 'hello' } });
      expect((await h.result()).status).toBe('succeeded');
      expect(await buildOf(h)).toEqual({ behavior: 'PINNED', buildId: v2 });
    }
    // The pinned run takes its approval and finishes on v1, only ever served by the v1 worker.
    await decide(inflight, 'approve', {}, waiting);
    expect((await inflight.result()).status).toBe('succeeded');
    expect(await buildOf(inflight)).toEqual({ behavior: 'PINNED', buildId: v1 });
    expect(new Set(workflowTaskWorkers(await historyOf(inflight)))).toEqual(new Set([`worker-${v1}`]));
  });
});
