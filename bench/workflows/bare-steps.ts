import { ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ModelActivities, ToolActivities } from '../../src/contract/activity-interfaces.js';
import { NO_EVENTS } from '../../src/contract/packed-events.js';
import { sha256Hex } from '../../src/contract/sha256.js';
import type { ModelMessageInput } from '../../src/workflows/runner/ports.js';
import {
  DEFAULT_TIMEOUTS,
  fastReadOptions,
  modelOptions,
  readToolOptions,
} from '../../src/workflows/temporal/activity-options.js';

/** Input of {@link bareSteps}: what the benchmark's bare arm needs to drive the same activities. */
export interface BareStepsInput {
  /** Key of the run in the evidence store (message groups, invocations); the workflow id by convention. */
  readonly runId: string;
  readonly modelRoute: string;
  /** The first user message (the scripted model starts on it). */
  readonly message: string;
  /** The only tool offered to the model, `name@version`. */
  readonly toolKey: string;
  /** Stop with a failure after this many model calls (guards against a script that never ends). */
  readonly maxModelCalls: number;
  /**
   * Run the tool calls as local activities with this start-to-close timeout (ms), one try each (the
   * "bare local" arm of bench/tools/fast-path.ts); absent: regular activities (the "bare" arm).
   */
  readonly localToolMs?: number;
}

export interface BareStepsResult {
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly text: string;
}

const { callModel } = proxyActivities<ModelActivities>(modelOptions(DEFAULT_TIMEOUTS));
const { runTool } = proxyActivities<ToolActivities>(readToolOptions(DEFAULT_TIMEOUTS));
const local = proxyLocalActivities<ToolActivities>(fastReadOptions(2_000));

/**
 * The benchmark baseline: the same two activities a harness step runs (`callModel`, then `runTool`
 * for each proposed read call) with the same activity options, and nothing else — no runner, no
 * policy, budgets, events, search attributes or completion check. With `localToolMs` the tool calls
 * are local activities (what a harness fast read is). Not part of the agent runtime.
 *
 * Failure semantics: an activity failure fails the workflow; so does going over `maxModelCalls`
 * (`bench.too_many_calls`, non-retryable).
 */
export async function bareSteps(input: BareStepsInput): Promise<BareStepsResult> {
  let messages: ModelMessageInput[] = [
    { role: 'system', content: 'bare benchmark', trust: 'system' },
    { role: 'user', content: input.message, trust: 'untrusted' },
  ];
  let seq = 0;
  for (let callSeq = 1; callSeq <= input.maxModelCalls; callSeq++) {
    const decision = await callModel({
      runId: input.runId,
      callSeq,
      purpose: 'decide',
      modelRoute: input.modelRoute,
      newMessages: messages,
      toolKeys: [input.toolKey],
      events: NO_EVENTS,
    });
    if (decision.toolCalls.length === 0) return { modelCalls: callSeq, toolCalls: seq, text: decision.text };
    messages = [];
    for (const call of decision.toolCalls) {
      seq += 1;
      const args = (call.args ?? {}) as Record<string, unknown>;
      const tool =
        input.localToolMs === undefined
          ? runTool
          : (i: Parameters<typeof runTool>[0]) =>
              local.runTool.executeWithOptions(fastReadOptions(input.localToolMs!), [i]);
      const result = await tool({
        runId: input.runId,
        seq,
        tool: call.name,
        version: call.version,
        effect: 'read',
        args,
        argsDigest: `sha256:${sha256Hex(JSON.stringify(args))}`,
        idempotencyKey: `${input.runId}/${seq}`,
        events: NO_EVENTS,
      });
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        content: JSON.stringify({ output: result.output ?? null }),
        trust: 'untrusted',
      });
    }
  }
  throw ApplicationFailure.create({
    type: 'bench.too_many_calls',
    message: `more than ${input.maxModelCalls} model calls`,
    nonRetryable: true,
  });
}
