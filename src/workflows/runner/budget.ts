import { z } from 'zod';
import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';

/**
 * The object schema of {@link BudgetLimitsSchema}, for callers that need its object methods (e.g.
 * `budgetLimitsObject().partial()` for a partial budget). Built on first use (see builtOnFirstUse).
 */
export const budgetLimitsObject = builtOnFirstUse(() =>
  z
    .object({
      maxSteps: z.number().int().positive(),
      maxModelCalls: z.number().int().positive(),
      maxToolCalls: z.number().int().positive(),
      /** Per tool name: maximum dispatched invocations. */
      perToolLimit: z.record(z.string(), z.number().int().positive()),
      maxInputTokens: z.number().int().positive(),
      maxOutputTokens: z.number().int().positive(),
      maxCostUsd: z.number().positive(),
      /** Wall-clock deadline from the run's start, enforced with a Temporal timer. */
      deadlineSeconds: z.number().positive(),
      /** How many times the same tool may be called with the same arguments (digest) before the run stops. */
      maxDuplicateCalls: z.number().int().positive(),
      /** How many consecutive steps may pass without a new fact, artifact or successful call. */
      maxStepsWithoutProgress: z.number().int().positive(),
      /** A warning event is emitted when a budget crosses this fraction. */
      warnAtFraction: z.number().positive().max(1),
    })
    .strict(),
);

/**
 * Independent budgets of a run (seed 004 runtime guards). Each one, when exceeded, ends the run in
 * `budget_exhausted` naming that budget. All optional; defaults are in {@link DEFAULT_LIMITS}. Built on
 * first use (see builtOnFirstUse); its object methods are on {@link budgetLimitsObject}.
 */
export const BudgetLimitsSchema = z.lazy(budgetLimitsObject);
export type BudgetLimits = z.infer<typeof BudgetLimitsSchema>;

/**
 * {@link BudgetLimitsSchema} with every field optional: the `budget` of a run's input, which every run
 * parses. Built once per worker and shared by its runs (see sharedAcrossRuns).
 */
export const PartialBudgetLimitsSchema = z.lazy(
  sharedAcrossRuns('workflows/runner/budget#PartialBudgetLimitsSchema', () => budgetLimitsObject().partial()),
);

export const DEFAULT_LIMITS: BudgetLimits = {
  maxSteps: 50,
  maxModelCalls: 40,
  maxToolCalls: 60,
  perToolLimit: {},
  maxInputTokens: 2_000_000,
  maxOutputTokens: 200_000,
  maxCostUsd: 10,
  deadlineSeconds: 24 * 3600,
  maxDuplicateCalls: 2,
  maxStepsWithoutProgress: 8,
  warnAtFraction: 0.8,
};

export interface BudgetUsage {
  steps: number;
  modelCalls: number;
  toolCalls: number;
  perTool: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Count per `tool@version#argsDigest`. */
  callDigests: Record<string, number>;
  stepsWithoutProgress: number;
}

export function emptyUsage(): BudgetUsage {
  return {
    steps: 0,
    modelCalls: 0,
    toolCalls: 0,
    perTool: {},
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    callDigests: {},
    stepsWithoutProgress: 0,
  };
}

/** Names of the budgets, as they appear in `budget_exhausted` reasons and events. */
export type BudgetName =
  | 'max_steps'
  | 'max_model_calls'
  | 'max_tool_calls'
  | 'per_tool_limit'
  | 'max_input_tokens'
  | 'max_output_tokens'
  | 'max_cost_usd'
  | 'wall_clock_deadline'
  | 'duplicate_call'
  | 'no_progress';

export interface BudgetExhaustion {
  readonly budget: BudgetName;
  readonly limit: number;
  readonly used: number;
  readonly detail?: string;
}

/** Would one more step exceed a limit? */
export function checkStep(limits: BudgetLimits, usage: BudgetUsage): BudgetExhaustion | undefined {
  if (usage.steps + 1 > limits.maxSteps)
    return { budget: 'max_steps', limit: limits.maxSteps, used: usage.steps };
  if (usage.stepsWithoutProgress >= limits.maxStepsWithoutProgress) {
    return { budget: 'no_progress', limit: limits.maxStepsWithoutProgress, used: usage.stepsWithoutProgress };
  }
  return undefined;
}

/** Would one more model call exceed a limit (calls, tokens or cost already spent)? */
export function checkModelCall(limits: BudgetLimits, usage: BudgetUsage): BudgetExhaustion | undefined {
  if (usage.modelCalls + 1 > limits.maxModelCalls) {
    return { budget: 'max_model_calls', limit: limits.maxModelCalls, used: usage.modelCalls };
  }
  return checkSpend(limits, usage);
}

/** Have tokens or cost gone over their limits? Checked after each model call's usage is counted. */
export function checkSpend(limits: BudgetLimits, usage: BudgetUsage): BudgetExhaustion | undefined {
  if (usage.inputTokens > limits.maxInputTokens) {
    return { budget: 'max_input_tokens', limit: limits.maxInputTokens, used: usage.inputTokens };
  }
  if (usage.outputTokens > limits.maxOutputTokens) {
    return { budget: 'max_output_tokens', limit: limits.maxOutputTokens, used: usage.outputTokens };
  }
  if (usage.costUsd > limits.maxCostUsd)
    return { budget: 'max_cost_usd', limit: limits.maxCostUsd, used: usage.costUsd };
  return undefined;
}

/** Would dispatching this call exceed the tool-call, per-tool or duplicate-call limits? */
export function checkToolCall(
  limits: BudgetLimits,
  usage: BudgetUsage,
  tool: string,
  callKey: string,
): BudgetExhaustion | undefined {
  if (usage.toolCalls + 1 > limits.maxToolCalls) {
    return { budget: 'max_tool_calls', limit: limits.maxToolCalls, used: usage.toolCalls };
  }
  const perTool = limits.perToolLimit[tool];
  const usedTool = usage.perTool[tool] ?? 0;
  if (perTool !== undefined && usedTool + 1 > perTool) {
    return { budget: 'per_tool_limit', limit: perTool, used: usedTool, detail: tool };
  }
  const dup = usage.callDigests[callKey] ?? 0;
  if (dup + 1 > limits.maxDuplicateCalls) {
    return { budget: 'duplicate_call', limit: limits.maxDuplicateCalls, used: dup, detail: callKey };
  }
  return undefined;
}

/** The budget names whose usage crossed `warnAtFraction` of their limit. */
export function budgetWarnings(limits: BudgetLimits, usage: BudgetUsage): BudgetName[] {
  const f = limits.warnAtFraction;
  const out: BudgetName[] = [];
  if (usage.steps >= f * limits.maxSteps) out.push('max_steps');
  if (usage.modelCalls >= f * limits.maxModelCalls) out.push('max_model_calls');
  if (usage.toolCalls >= f * limits.maxToolCalls) out.push('max_tool_calls');
  if (usage.inputTokens >= f * limits.maxInputTokens) out.push('max_input_tokens');
  if (usage.outputTokens >= f * limits.maxOutputTokens) out.push('max_output_tokens');
  if (usage.costUsd >= f * limits.maxCostUsd) out.push('max_cost_usd');
  return out;
}

/** The run's wall-clock deadline (ISO): `startedAt` plus `limits.deadlineSeconds`. Pure; never throws. */
export function wallClockDeadline(startedAt: string, limits: Pick<BudgetLimits, 'deadlineSeconds'>): string {
  return new Date(Date.parse(startedAt) + limits.deadlineSeconds * 1000).toISOString();
}
