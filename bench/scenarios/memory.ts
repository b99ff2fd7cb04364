import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { WorkflowHandle } from '@temporalio/client';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared.js';
import { armOrder, expectDone, startRun, type Arm } from '../lib/arms.js';
import { progress } from '../lib/progress.js';
import { ToolGate, type Rig } from '../lib/rig.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export interface MemorySample {
  readonly arm: Arm;
  readonly cachedRuns: number;
  readonly blockedAtStep: number;
  readonly heapPerRunKiB: number;
  readonly rssPerRunKiB: number;
  readonly cachedInWorker: number;
}

function settle(): { heap: number; rss: number } {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Worker memory per cached run: `count` runs are held mid-run (their tool call of step `blockAt` waits
 * on a gate) so each stays in the worker's workflow cache with `blockAt` steps of state behind it.
 * The worker runs in debugMode for both arms, so workflow state lives in this process's main V8 heap
 * and `heapUsed` after a forced GC sees it. Per run = (held - idle) / count.
 *
 * A debugMode worker installs the SDK's promise hook and stack-trace override in this thread and the
 * SDK never removes them (SDK 1.24, `GlobalHandlers.uninstall` is "not called anywhere"): every later
 * promise of the process (activities, the client, the evidence store) would then pay the hook, and the
 * scenarios of the next repetitions would measure it. They are removed here once both arms are done.
 */
export async function measureMemory(
  rig: Rig,
  count: number,
  blockAt: number,
  stepsPerRun: number,
  rep: number,
): Promise<MemorySample[]> {
  const out: MemorySample[] = [];
  for (const arm of armOrder(rep)) {
    const taskQueue = `mem-${arm}-r${rep}`;
    const gate = new ToolGate(blockAt);
    const worker = await rig.startWorker(taskQueue, { gate, debugMode: true });
    // Warm the code paths of this arm once so the baseline includes them.
    const warm = await startRun(rig, arm, stepsPerRun, taskQueue, `mem-warm-${arm}-r${rep}`);
    while (gate.blocked < 1) await sleep(50);
    await sleep(300);
    const idle = settle();
    const handles: WorkflowHandle[] = [];
    for (let i = 0; i < count; i++)
      handles.push(await startRun(rig, arm, stepsPerRun, taskQueue, `mem-${arm}-r${rep}-${i}`));
    const deadline = Date.now() + 600_000;
    while (gate.blocked < count + 1) {
      if (Date.now() > deadline)
        throw new Error(`only ${gate.blocked - 1} of ${count} ${arm} runs reached the gate`);
      await sleep(100);
    }
    await sleep(500);
    const held = settle();
    const cachedInWorker = worker.worker.getStatus().numCachedWorkflows ?? -1;
    gate.release();
    await expectDone(warm, arm, stepsPerRun);
    for (const h of handles) await expectDone(h, arm, stepsPerRun);
    await worker.stop();
    const sample = {
      arm,
      cachedRuns: count,
      blockedAtStep: blockAt,
      heapPerRunKiB: (held.heap - idle.heap) / count / 1024,
      rssPerRunKiB: (held.rss - idle.rss) / count / 1024,
      cachedInWorker,
    };
    out.push(sample);
    progress(
      `  memory ${arm}: ${sample.heapPerRunKiB.toFixed(1)} KiB heap per cached run (${count} runs at step ${blockAt})`,
    );
  }
  globalHandlers.uninstall();
  return out;
}
