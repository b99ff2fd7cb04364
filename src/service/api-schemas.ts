import { z } from 'zod';

/**
 * The run service's request and response shapes (docs/api.md). The same zod schemas validate requests
 * and generate the OpenAPI document ({@link openApiDocument}), so the two cannot disagree.
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

export const DecisionAnswerSchema = z.object({
  accepted: z.boolean(),
  code: z.string(),
  message: z.string(),
  actionId: z.string().optional(),
  principal: z.string().optional(),
  approvals: z.object({ have: z.number(), need: z.number() }).optional(),
});

export const ErrorSchema = z.object({
  /** `requestId` (server errors): the request's id in the service log and the `x-request-id` header. */
  error: z.object({ code: z.string(), message: z.string(), requestId: z.string().optional() }),
});

/** The OpenAPI 3.1 document of the service, generated from the schemas above. */
export function openApiDocument(): Record<string, unknown> {
  const schema = (s: z.ZodType) =>
    z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  const json = (s: z.ZodType) => ({ content: { 'application/json': { schema: schema(s) } } });
  const errors = {
    '400': { description: 'Invalid request', ...json(ErrorSchema) },
    '401': { description: 'Missing, invalid or expired bearer token', ...json(ErrorSchema) },
    '403': { description: 'The caller lacks a role', ...json(ErrorSchema) },
    '404': { description: "No such run in the caller's tenant", ...json(ErrorSchema) },
    '429': { description: 'Over an admission limit; see Retry-After', ...json(ErrorSchema) },
  };
  const runId = { name: 'runId', in: 'path', required: true, schema: { type: 'string' } };
  return {
    openapi: '3.1.0',
    info: { title: 'agent-harness run service', version: '1' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
    paths: {
      '/v1/runs': {
        post: {
          summary: 'Start a run for the caller (tenant and user from the token)',
          parameters: [
            { name: 'Idempotency-Key', in: 'header', required: false, schema: schema(IdempotencyKeySchema) },
          ],
          requestBody: { required: true, ...json(StartRunBodySchema) },
          responses: {
            '201': { description: 'Started', ...json(RunSummarySchema) },
            '200': { description: 'Already started with this Idempotency-Key', ...json(RunSummarySchema) },
            '409': { description: 'The Idempotency-Key was used with another request', ...json(ErrorSchema) },
            ...errors,
          },
        },
        get: {
          summary: "List the caller's tenant's runs, newest first",
          parameters: Object.entries(ListRunsQuerySchema.shape).map(([name, s]) => ({
            name,
            in: 'query',
            required: false,
            schema: schema(s),
          })),
          responses: { '200': { description: 'A page of runs', ...json(RunListSchema) }, ...errors },
        },
      },
      '/v1/runs/{runId}': {
        get: {
          summary: 'One run (its view)',
          parameters: [runId],
          responses: { '200': { description: 'The run' }, ...errors },
        },
      },
      '/v1/runs/{runId}/events': {
        get: {
          summary:
            "The run's public events as Server-Sent Events (id = sequence; resumable with Last-Event-ID)",
          parameters: [
            runId,
            { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'view', in: 'query', required: false, schema: { enum: ['public', 'internal'] } },
          ],
          responses: { '200': { description: 'text/event-stream' }, ...errors },
        },
      },
      '/v1/runs/{runId}/decisions': {
        post: {
          summary: "Decide the pending action (signed by the service on the caller's behalf)",
          parameters: [runId],
          requestBody: { required: true, ...json(DecisionBodySchema) },
          responses: {
            '200': { description: 'Accepted', ...json(DecisionAnswerSchema) },
            '409': { description: 'Nothing or something else is pending', ...json(DecisionAnswerSchema) },
            '422': { description: 'Refused by the run', ...json(DecisionAnswerSchema) },
            ...errors,
          },
        },
      },
      '/v1/runs/{runId}/cancel': {
        post: {
          summary: 'Cancel the run',
          parameters: [runId],
          requestBody: { required: true, ...json(CancelBodySchema) },
          responses: { '200': { description: 'Accepted', ...json(DecisionAnswerSchema) }, ...errors },
        },
      },
      '/healthz': {
        get: { summary: 'The process is up', security: [], responses: { '200': { description: 'ok' } } },
      },
      '/readyz': {
        get: {
          summary: "Temporal, the evidence store and the namespace's search attributes are ready",
          security: [],
          responses: {
            '200': { description: 'ready: `{ ready: true, checks }`' },
            '503': {
              description:
                'not ready: `{ ready: false, message, checks: { temporal, store, searchAttributes } }`, each `{ ok, message?, missing? }`',
            },
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          security: [],
          responses: { '200': { description: 'text/plain' } },
        },
      },
      '/inbox': {
        get: {
          summary: 'The approval inbox (HTML)',
          security: [],
          responses: { '200': { description: 'text/html' } },
        },
      },
    },
  };
}
