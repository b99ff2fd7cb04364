import { proxyActivities } from '@temporalio/workflow';
import type { createModelActivities } from '../../src/activities/model-activities.js';
import type { createToolActivities } from '../../src/activities/tool-activities.js';
import {
  DEFAULT_TIMEOUTS,
  modelOptions,
  readToolOptions,
} from '../../src/workflows/temporal/activity-options.js';

type ModelActivities = ReturnType<typeof createModelActivities>;
type ToolActivities = ReturnType<typeof createToolActivities>;
/** The model activity's input, exactly as `agentRun` sends it. */
export type BareModelInput = Parameters<ModelActivities['callModel']>[0];
/** The tool activity's input, exactly as `agentRun` sends it. */
export type BareToolInput = Parameters<ToolActivities['runTool']>[0];

/** One step of the bare baseline: a model call, then the tool calls it would have made. */
export interface BareStep {
  readonly model: BareModelInput;
  readonly tools: readonly BareToolInput[];
}

const model = proxyActivities<ModelActivities>(modelOptions(DEFAULT_TIMEOUTS));
const read = proxyActivities<ToolActivities>(readToolOptions(DEFAULT_TIMEOUTS));

/**
 * The history-cost baseline: the same model and tool activities as `agentRun`, with the same options,
 * called in sequence with no runner, no events, no search attributes, no timers. Returns the count of
 * activities it ran.
 */
export async function bareRun(steps: readonly BareStep[]): Promise<number> {
  let n = 0;
  for (const step of steps) {
    await model.callModel(step.model);
    n += 1;
    for (const t of step.tools) {
      await read.runTool(t);
      n += 1;
    }
  }
  return n;
}
