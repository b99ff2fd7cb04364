import { z } from 'zod';
import { DataPointerSchema, ErasureRecordSchema } from '../contract/erasure-record.js';

/**
 * The run service's request and response shapes (docs/api.md). The same zod schemas validate requests,
 * type what the handlers answer, and generate the OpenAPI document (openapi-document.ts);
 * test/e2e/run-service-contract.test.ts checks every answer of the real service against it.
 */

export const StartRunBodySchema = z.strictObject({
  /** `name` or `name@vN`; default version: the highest registered. */
  profile: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,99}(@v[0-9]{1,6})?$/, 'must be name or name@vN'),
  /** `name@vN`, one the profile allows; default: the profile's default policy. */
  policy: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]{0,99}@v[0-9]{1,6}$/, 'must be name@vN')
    .optional(),
  /** The task, interpreted by the profile. */
  task: z.record(z.string(), z.unknown()),
  threadId: z.string().min(1).max(200).optional(),
  modelRoute: z.string().min(1).max(200).optional(),
  budget: z.record(z.string(), z.unknown()).optional(),
  approvalTimeoutSeconds: z.number().positive().max(2_592_000).optional(),
});
export type StartRunBody = z.infer<typeof StartRunBodySchema>;

export const IdempotencyKeySchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'must be 1-200 letters, digits or . _ : -');

export const ListRunsQuerySchema = z.strictObject({
  status: z
    .string()
    .regex(/^[a-z_]{1,64}$/)
    .optional(),
  waitingReason: z
    .string()
    .regex(/^[a-z_]{1,64}$/)
    .optional(),
  profile: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]{0,99}@v[0-9]{1,6}$/)
    .optional(),
  /** Only runs that wait for a decision the caller may take (the approval inbox). */
  awaitingDecision: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,4096}$/)
    .optional(),
});

export const RunSummarySchema = z.object({
  runId: z.string(),
  profile: z.string().nullable(),
  status: z.string().nullable(),
  waitingReason: z.string().nullable(),
  executionStatus: z.string(),
  startedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
});

export const RunListSchema = z.object({
  runs: z.array(RunSummarySchema),
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor: z.string().optional(),
});

export const DecisionBodySchema = z.discriminatedUnion('decision', [
  z.strictObject({
    decision: z.enum(['approve', 'confirm']),
    /** The pending action decided (the run's `pendingAction.actionId`): required when given elsewhere. */
    actionId: z.string().min(1).max(200),
    reason: z.string().max(2000).optional(),
  }),
  z.strictObject({
    decision: z.literal('reject'),
    actionId: z.string().min(1).max(200),
    reason: z.string().min(1).max(2000),
  }),
  z.strictObject({
    /** An approver's question to the run's requester instead of a decision (docs/signals.md). */
    decision: z.literal('request_more_info'),
    actionId: z.string().min(1).max(200),
    question: z.string().min(1).max(2000),
  }),
  z.strictObject({
    decision: z.literal('reconcile'),
    invocationSeq: z.number().int().nonnegative(),
    outcome: z.enum(['succeeded', 'failed', 'not_applied']),
    externalId: z.string().min(1).max(200).optional(),
    evidence: z.record(z.string(), z.unknown()).optional(),
  }),
  z.strictObject({
    decision: z.literal('input'),
    slot: z.string().min(1).max(200).optional(),
    value: z.string().max(10_000),
  }),
]);
export type DecisionBody = z.infer<typeof DecisionBodySchema>;

export const CancelBodySchema = z.strictObject({ reason: z.string().min(1).max(2000) });

/** The body of `POST /v1/runs/{id}/erase`: which values (all, some paths, one subject's) and why. */
export const EraseBodySchema = z.strictObject({
  paths: z.array(DataPointerSchema).min(1).max(20).optional(),
  subject: z.union([z.string().min(1).max(1000), z.number()]).optional(),
  reason: z.string().trim().min(1).max(1000),
});

/** The answer of an erasure: one record per run that had values to erase (none: nothing left). */
export const ErasedSchema = z.object({ erased: z.array(ErasureRecordSchema) });

/** The run's answer to a decision it accepted (a refusal is an {@link ErrorSchema} error). */
export const DecisionAnswerSchema = z.object({
  accepted: z.literal(true),
  code: z.string(),
  message: z.string(),
  actionId: z.string().optional(),
  principal: z.string().optional(),
  approvals: z.object({ have: z.number(), need: z.number() }).optional(),
});

/**
 * Every error the service answers, whoever refused (the service or the run): a stable reason `code`,
 * a `message`, and, where they apply, `requestId` (server errors: the request's id in the service log
 * and the `x-request-id` header) and what the run said of a decision it refused (`actionId`,
 * `principal`, `approvals`).
 */
export const ErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    requestId: z.string().optional(),
    actionId: z.string().optional(),
    principal: z.string().optional(),
    approvals: z.object({ have: z.number(), need: z.number() }).optional(),
  }),
});

/** What a start answers: the run's id, its execution status, and where to read it and its events. */
export const StartedRunSchema = z.object({
  runId: z.string(),
  /** `RUNNING` for a new run; a replay says what the run is now (`COMPLETED`...). */
  executionStatus: z.string(),
  links: z.object({ self: z.string(), events: z.string() }),
});
export type StartedRun = z.infer<typeof StartedRunSchema>;
export type RunList = z.infer<typeof RunListSchema>;
