import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import type { RefundComposition } from '../../apps/refund/composition.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { cliCacheDir } from '../../src/devserver/cli-locator.js';
import { loadDevServerConfig } from '../../src/devserver/config.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import { decide } from '../support/decisions.js';
import { refundRunInput, waitForState } from '../support/harness.js';
import { historyOf, workflowTaskWorkers } from '../support/history.js';
import { TEST_PRINCIPALS, testStartSigner } from '../support/principals.js';
import { connectTestTemporal, startWorker, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';

/**
 * Rolling out workflow code with Temporal Worker Versioning (docs/control-plane.md): two worker
 * deployment versions of the same code on one task queue, the new one ramped, then made current, with
 * the `temporal worker deployment` commands an operator runs. A PINNED run stays on the version it
 * started on; new runs follow the ramp.
 */

const TAG = Date.now().toString(36);
const VersioningBehavior = proto.temporal.api.enums.v1.VersioningBehavior;
const DEPLOYMENT = `harness-wv-${TAG}`;

function temporal(args: readonly string[]): string {
  return execFileSync(join(cliCacheDir(loadDevServerConfig().cli.version), 'temporal'), [
    ...args,
    '--address',
    inject('temporalAddress'),
    '--namespace',
    inject('temporalNamespace'),
  ]).toString('utf8');
}

/** Retries a CLI command until the server takes it (a version exists once its worker polled). */
async function temporalWhenReady(args: readonly string[], timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return temporal(args);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

interface Versioning {
  readonly behavior: string | undefined;
  readonly buildId: string | undefined;
}

/** The versioning info the server keeps for a run: its behavior and the build it is on. */
async function versioningOf(handle: WorkflowHandle): Promise<Versioning> {
  const d = await handle.describe();
  const info = d.raw.workflowExecutionInfo?.versioningInfo;
  return {
    behavior:
      info?.behavior === VersioningBehavior.VERSIONING_BEHAVIOR_PINNED
        ? 'PINNED'
        : info?.behavior === VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE
          ? 'AUTO_UPGRADE'
          : undefined,
    buildId: info?.deploymentVersion?.buildId ?? undefined,
  };
}

describe('workflow code rollout with Worker Versioning (real dev server, temporal worker deployment)', () => {
  let t: TestTemporal;
  let composition: RefundComposition;
  const taskQueue = uniqueTaskQueue('versioning');
  const stops: (() => Promise<void>)[] = [];

  async function versionWorker(buildId: string): Promise<void> {
    stops.push(
      startWorker(
        await createHarnessWorker({
          connection: t.nativeConnection,
          namespace: t.namespace,
          taskQueue,
          composition: { ...composition, identity: `worker-${buildId}` },
          workflowBundle: { codePath: inject('workflowBundlePath') },
          deployment: {
            version: { deploymentName: DEPLOYMENT, buildId },
            useWorkerVersioning: true,
            defaultVersioningBehavior: 'PINNED',
          },
        }),
      ),
    );
  }

  function start(workflowId: string, input: Partial<AgentRunInput> & Pick<AgentRunInput, 'task'>) {
    const signer = testStartSigner(input); // the refund run's customer (an anonymous refund is refused)
    return startAgentRun(t.client, {
      taskQueue,
      workflowId,
      input: refundRunInput(input),
      ...(signer !== undefined ? { signer } : {}),
    });
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'versioning-'));
    t = await connectTestTemporal();
    composition = await createShowcaseComposition({
      storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
      refundStorePath: join(dir, 'refund.db'),
      env: {},
      principals: TEST_PRINCIPALS,
      scripts: {
        'scripted/answer': {
          entries: [],
          fallback: { text: 'Answered.', toolCalls: [], usage: { inputTokens: 5, outputTokens: 2 } },
        },
      },
    });
  }, 120_000);

  afterAll(async () => {
    for (const stop of stops) await stop();
    await composition?.close();
    await t?.close();
  });

  it('v1 current, v2 ramped to 50 % then current: new runs follow; a pinned run in flight finishes on v1', async () => {
    const v1 = `${TAG}-v1`;
    const v2 = `${TAG}-v2`;
    await versionWorker(v1);
    await temporalWhenReady([
      'worker',
      'deployment',
      'set-current-version',
      '--deployment-name',
      DEPLOYMENT,
      '--build-id',
      v1,
      '--yes',
    ]);
    // A refund run that waits for its approval: started on v1, pinned there.
    const inflight = await start(`wv-inflight-${TAG}`, {
      task: { message: 'refund ORD-1001', customerId: 'C1001' },
    });
    const waiting = await waitForState(inflight, (v) => v.status === 'awaiting_confirmation');
    expect(await versioningOf(inflight)).toEqual({ behavior: 'PINNED', buildId: v1 });

    await versionWorker(v2);
    await temporalWhenReady([
      'worker',
      'deployment',
      'set-ramping-version',
      '--deployment-name',
      DEPLOYMENT,
      '--build-id',
      v2,
      '--percentage',
      '50',
      '--yes',
    ]);
    const answer = { profile: { name: 'support.answer', version: 'v1' }, modelRoute: 'scripted/answer' };
    const ramped: Versioning[] = [];
    for (let i = 0; i < 20; i++) {
      const h = await start(`wv-ramp-${TAG}-${i}`, { ...answer, task: { message: 'hello' } });
      expect((await h.result()).status).toBe('succeeded');
      ramped.push(await versioningOf(h));
    }
    const onV2 = ramped.filter((v) => v.buildId === v2).length;
    console.log(`ramp at 50 %: ${onV2} of 20 new runs on ${v2}`);
    expect(onV2).toBeGreaterThan(0);
    expect(onV2).toBeLessThan(20);
    expect(ramped.every((v) => v.behavior === 'PINNED' && (v.buildId === v1 || v.buildId === v2))).toBe(true);

    temporal([
      'worker',
      'deployment',
      'set-current-version',
      '--deployment-name',
      DEPLOYMENT,
      '--build-id',
      v2,
      '--yes',
    ]);
    for (let i = 0; i < 5; i++) {
      const h = await start(`wv-current-${TAG}-${i}`, { ...answer, task: { message: 'hello' } });
      expect((await h.result()).status).toBe('succeeded');
      expect(await versioningOf(h)).toEqual({ behavior: 'PINNED', buildId: v2 });
    }
    // The run in flight stays on v1 (pinned): its approval is taken and it finishes there.
    await decide(inflight, 'approve', {}, waiting);
    const result = await inflight.result();
    expect(result.status).toBe('succeeded');
    expect(await versioningOf(inflight)).toEqual({ behavior: 'PINNED', buildId: v1 });
    const workers = new Set(workflowTaskWorkers(await historyOf(inflight)));
    expect([...workers]).toEqual([`worker-${v1}`]);
    const described = temporal(['worker', 'deployment', 'describe', '--name', DEPLOYMENT]);
    console.log(described);
    expect(described).toContain(v2);
  }, 300_000);
});
