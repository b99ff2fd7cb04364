import type { WorkflowHandle } from '@temporalio/client';
import { startAgentRun } from '../../src/client/start-run.js';
import { BENCH_NOOP_TOOL } from '../../apps/bench/bench-noop-tool.js';
import { BENCH_TASK_MESSAGE, benchRoute } from '../../apps/bench/bench-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { BareStepsResult } from '../workflows/bare-steps.js';
import type { Rig } from './rig.js';

export type Arm = 'harness' | 'bare';
export const ARMS: readonly Arm[] = ['harness', 'bare'];

/** The arms in the order of repetition `i` (alternating, so neither arm always goes first). */
export function armOrder(i: number): Arm[] {
  return i % 2 === 0 ? ['harness', 'bare'] : ['bare', 'harness'];
}

/**
 * Budgets of a harness run of `steps` steps. Every model call and every tool call counts as a budget
 * step, so a run of N steps uses 2N + 1 steps, N + 1 model calls and N tool calls. The duplicate-call
 * and no-progress guards stay at their defaults (2 and 8): `bench.noop` gets a new `i` every step, so
 * every call is the first of its digest and counts as progress.
 */
export function benchBudget(steps: number): Record<string, number> {
  return { maxSteps: 2 * steps + 2, maxModelCalls: steps + 1, maxToolCalls: steps };
}

/** Event count no bench run reaches, so the harness never continues as new by its own threshold. */
const NO_CONTINUE_AS_NEW = 50_000;

/** Start one run of `steps` steps in `arm` on `taskQueue`. */
export async function startRun(
  rig: Rig,
  arm: Arm,
  steps: number,
  taskQueue: string,
  workflowId: string,
): Promise<WorkflowHandle> {
  if (arm === 'harness') {
    return startAgentRun(rig.client, {
      taskQueue,
      workflowId,
      input: {
        schemaVersion: 1,
        profile: { name: 'bench.steps', version: 'v1' },
        toolRegistryDigest: rig.composition.registry.snapshot().digest,
        modelRoute: benchRoute(steps),
        configDigest: rig.composition.configDigest,
        task: { message: BENCH_TASK_MESSAGE },
        budget: benchBudget(steps),
        // One history per run: the benchmark measures growth without continue-as-new.
        continueAsNewAfterEvents: NO_CONTINUE_AS_NEW,
      },
    });
  }
  return rig.client.workflow.start('bareSteps', {
    taskQueue,
    workflowId,
    args: [
      {
        runId: workflowId,
        modelRoute: benchRoute(steps),
        message: BENCH_TASK_MESSAGE,
        toolKey: `${BENCH_NOOP_TOOL}@v1`,
        maxModelCalls: steps + 1,
      },
    ],
  });
}

/** Wait for a run's result and check it did what the benchmark expects. @throws Error when it did not. */
export async function expectDone(handle: WorkflowHandle, arm: Arm, steps: number): Promise<void> {
  if (arm === 'harness') {
    const r = (await handle.result()) as AgentRunResult;
    if (r.status !== 'succeeded' || r.output !== 'done') {
      throw new Error(
        `harness run ${handle.workflowId} ended ${r.status}: ${JSON.stringify(r.terminalReason)}`,
      );
    }
    return;
  }
  const r = (await handle.result()) as BareStepsResult;
  if (r.toolCalls !== steps || r.text !== 'done')
    throw new Error(`bare run ${handle.workflowId} made ${r.toolCalls} tool calls, expected ${steps}`);
}
