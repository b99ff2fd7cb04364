import { z } from 'zod';
import { ArtifactSchema } from '../../contract/artifact.js';

/*
 * The zod schema of run state version 1, as the runner wrote it until version 2 (frozen: carried
 * states of that version are still read and migrated). Strict at every level, so a migration never
 * drops a field it does not know.
 */

function runStatusV1() {
  return z.enum([
    'created',
    'queued',
    'running',
    'awaiting_input',
    'awaiting_confirmation',
    'awaiting_human',
    'retry_scheduled',
    'succeeded',
    'failed',
    'cancelled',
    'budget_exhausted',
  ]);
}

function versionsV1() {
  return z.strictObject({
    profile: z.string(),
    policy: z.string(),
    toolRegistryDigest: z.string(),
    modelRoute: z.string(),
    configDigest: z.string(),
  });
}

function limitsV1() {
  return z.strictObject({
    maxSteps: z.number(),
    maxModelCalls: z.number(),
    maxToolCalls: z.number(),
    perToolLimit: z.record(z.string(), z.number()),
    maxInputTokens: z.number(),
    maxOutputTokens: z.number(),
    maxCostUsd: z.number(),
    deadlineSeconds: z.number(),
    maxDuplicateCalls: z.number(),
    maxStepsWithoutProgress: z.number(),
    warnAtFraction: z.number(),
  });
}

function usageV1() {
  return z.strictObject({
    steps: z.number(),
    modelCalls: z.number(),
    toolCalls: z.number(),
    perTool: z.record(z.string(), z.number()),
    inputTokens: z.number(),
    outputTokens: z.number(),
    costUsd: z.number(),
    callDigests: z.record(z.string(), z.number()),
    stepsWithoutProgress: z.number(),
  });
}

function invocationV1() {
  return z.strictObject({
    seq: z.number().int(),
    tool: z.string(),
    version: z.string(),
    effect: z.enum(['read', 'write']),
    argsDigest: z.string(),
    status: z.enum([
      'pending',
      'succeeded',
      'rejected',
      'denied',
      'failed_retryable',
      'failed_terminal',
      'outcome_unknown',
      'interrupted',
      'not_applied',
    ]),
    externalId: z.string().optional(),
    artifactIds: z.array(z.string()),
    errorCode: z.string().optional(),
    resolvedBy: z.string().optional(),
  });
}

function pendingActionV1() {
  return z.strictObject({
    actionId: z.string(),
    kind: z.enum(['confirmation', 'human', 'reconcile', 'input']),
    tool: z.string().optional(),
    version: z.string().optional(),
    argsDigest: z.string().optional(),
    invocationSeq: z.number().int().optional(),
    slot: z.string().optional(),
    obligations: z.array(z.string()).readonly().optional(),
    expiresAt: z.string().nullable(),
  });
}

function humanRequestV1() {
  return z.strictObject({
    runId: z.string(),
    decisionType: z.string(),
    requestSummary: z.string(),
    verifiedFacts: z.array(z.string()).readonly(),
    policyEvidence: z.array(z.string()).readonly(),
    proposedAction: z.string(),
    riskReasons: z.array(z.string()).readonly(),
    allowedDecisions: z.array(z.string()).readonly(),
    expiresAt: z.string(),
  });
}

function terminalReasonV1() {
  return z.strictObject({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  });
}

function transitionV1(RunStatus: ReturnType<typeof runStatusV1>) {
  return z.strictObject({
    fromVersion: z.number().int(),
    fromStatus: RunStatus,
    toStatus: RunStatus,
    node: z.string().nullable(),
    patch: z.record(z.string(), z.unknown()),
    occurredAt: z.string(),
  });
}

/**
 * Every field of run state version 1 except `schemaVersion` (shared with later versions), built
 * afresh on each call. Only schemas built on first use (`z.lazy`) call it: the workflow sandbox
 * evaluates every module again for every run, so module-level schemas would be built for runs that
 * never parse a state (docs/history-cost.md, "CPU per run").
 *
 * Failure semantics: never throws; the schemas it builds report a state that does not match them
 * (`safeParse`) or throw a ZodError (`parse`).
 */
export function runStateV1Fields() {
  const RunStatus = runStatusV1();
  const Versions = versionsV1();
  const Limits = limitsV1();
  const Usage = usageV1();
  const Invocation = invocationV1();
  const PendingAction = pendingActionV1();
  const HumanRequest = humanRequestV1();
  const TerminalReason = terminalReasonV1();
  const Transition = transitionV1(RunStatus);

  return {
    runId: z.string().min(1),
    threadId: z.string().min(1),
    status: RunStatus,
    waitingReason: z.string().nullable(),
    currentNode: z.string().nullable(),
    stateVersion: z.number().int().nonnegative(),
    versions: Versions,
    limits: Limits,
    budget: Usage,
    invocations: z.array(Invocation),
    artifacts: z.array(ArtifactSchema),
    pendingAction: PendingAction.nullable(),
    humanRequest: HumanRequest.nullable(),
    nextSeq: z.number().int().positive(),
    nextModelCall: z.number().int().positive(),
    nextEventSeq: z.number().int().positive(),
    completedSteps: z.array(z.string()),
    facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    profileState: z.record(z.string(), z.unknown()),
    output: z.unknown(),
    terminalReason: TerminalReason.nullable(),
    recentTransitions: z.array(Transition),
    /** Optional: the last signals refused (bounded to 10 by the human gate); absent in older states. */
    signalRejections: z
      .array(z.strictObject({ signal: z.string(), code: z.string(), message: z.string(), at: z.string() }))
      .max(10)
      .optional(),
    startedAt: z.string(),
  };
}

/** Run state version 1, exactly as the runner wrote it. Built on first use. */
export const RunStateV1Schema = z.lazy(() =>
  z.strictObject({ schemaVersion: z.literal(1), ...runStateV1Fields() }),
);
export type RunStateV1 = z.output<typeof RunStateV1Schema>;
