import {
  CancelBodySchema,
  DecisionAnswerSchema,
  DecisionBodySchema,
  ErrorSchema,
  IdempotencyKeySchema,
  ListRunsQuerySchema,
  RunListSchema,
  StartedRunSchema,
  StartRunBodySchema,
} from './api-schemas.js';
import { HealthSchema, ReadinessSchema, RunDetailSchema } from './api-responses.js';
import { runInspectionPaths } from './openapi-inspection-paths.js';
import { error, errors, json, OUTCOME_UNKNOWN, runId, schema, SERVER_ERRORS, text } from './openapi-parts.js';

/**
 * The OpenAPI 3.1 document of the service (`GET /openapi.json`), generated from the zod schemas the
 * handlers parse requests with and type their answers by. Every status a route can answer is listed,
 * each error as the one `{ error: { code, message, ... } }` shape; test/e2e/run-service-contract.test.ts
 * drives the real service through each of them and validates every body against this document.
 */
export function openApiDocument(): Record<string, unknown> {
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
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: schema(IdempotencyKeySchema, 'input'),
            },
          ],
          requestBody: { required: true, ...json(StartRunBodySchema, 'input') },
          responses: {
            '201': { description: 'Started', ...json(StartedRunSchema) },
            '200': {
              description:
                'Already started with this Idempotency-Key and body (`Idempotent-Replayed: true`); costs no rate token',
              ...json(StartedRunSchema),
            },
            '403': error(
              'The caller lacks a start role, or asks over its caps (`auth.role_missing`, `run.*`)',
            ),
            '409': error('The Idempotency-Key was used with another request (`idempotency.key_reused`)'),
            ...errors('400', '401', '413', '415', '429'),
          },
        },
        get: {
          summary: "The runs in the caller's scope, newest (latest started) first",
          parameters: Object.entries(ListRunsQuerySchema.shape).map(([name, s]) => ({
            name,
            in: 'query',
            required: false,
            schema: schema(s, 'input'),
          })),
          responses: {
            '200': { description: 'A page of runs', ...json(RunListSchema) },
            ...errors('400', '401'),
          },
        },
      },
      ...runPaths(),
      ...runEvidencePaths(),
      ...runInspectionPaths(),
      '/healthz': {
        get: {
          summary: 'The process is up',
          security: [],
          responses: { '200': { description: 'ok', ...json(HealthSchema) }, ...SERVER_ERRORS },
        },
      },
      '/readyz': {
        get: {
          summary: "Temporal, the evidence store and the namespace's search attributes are ready",
          security: [],
          responses: {
            '200': { description: 'Ready', ...json(ReadinessSchema) },
            '503': {
              description: 'Not ready (the first failing check in `message`), or the service is closing',
              content: {
                'application/json': {
                  schema: { anyOf: [schema(ReadinessSchema, 'output'), schema(ErrorSchema, 'output')] },
                },
              },
            },
            '500': SERVER_ERRORS['500'],
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          security: [],
          responses: { '200': { description: 'Prometheus text', ...text('text/plain') }, ...SERVER_ERRORS },
        },
      },
      '/openapi.json': {
        get: {
          summary: 'This document',
          security: [],
          responses: {
            '200': {
              description: 'OpenAPI 3.1',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            ...SERVER_ERRORS,
          },
        },
      },
      '/inbox': {
        get: {
          summary: 'The approval inbox (HTML)',
          security: [],
          responses: { '200': { description: 'The page', ...text('text/html') }, ...SERVER_ERRORS },
        },
      },
    },
  };
}

/** The paths of one run's evidence, for operators: invocations, verification, proof bundle. */
function runEvidencePaths(): Record<string, unknown> {
  return {
    '/v1/runs/{runId}/invocations': {
      get: {
        summary:
          "The run's tool invocations: intents and results per attempt, idempotency keys, argument digests (no arguments or outputs)",
        parameters: [runId],
        responses: {
          '200': {
            description: 'The invocations',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['runId', 'invocations'],
                  properties: {
                    runId: { type: 'string' },
                    invocations: { type: 'array', items: { type: 'object' } },
                  },
                },
              },
            },
          },
          '403': error('Invocations need an operator with a role of `roles.internalEvents`'),
          '404': error("No such run in the caller's scope (`run.not_found`)"),
          ...errors('401'),
        },
      },
    },
    '/v1/runs/{runId}/verification': {
      get: {
        summary:
          "The verifier's report on the run (`harness verify`): each check with PASS/FAIL and its reason code",
        parameters: [runId],
        responses: {
          '200': {
            description: 'The report',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['runId', 'ok', 'checks'],
                  properties: {
                    runId: { type: 'string' },
                    ok: { type: 'boolean' },
                    checks: { type: 'array', items: { type: 'object' } },
                  },
                },
              },
            },
          },
          '403': error("A run's proof needs an operator with a role of `roles.internalEvents`"),
          '404': error(
            "No such run in the caller's scope, or no stored events (`run.not_found`, `run.no_evidence`)",
          ),
          '413': error(
            "The run is over the service's proof size cap (`proof.too_large`, with `limit` and `max`); verify it with the CLI",
          ),
          '429': error("Over the caller's proof budget (`rate.proof_user`); see Retry-After"),
          ...errors('401'),
        },
      },
    },
    '/v1/runs/{runId}/bundle': {
      get: {
        summary: "The run's self-contained proof bundle (`harness export`), as a download",
        parameters: [runId],
        responses: {
          '200': {
            description: 'The bundle (docs/evidence-chain.md)',
            content: { 'application/json': { schema: { type: 'object', required: ['format', 'runId'] } } },
          },
          '403': error("A run's proof needs an operator with a role of `roles.internalEvents`"),
          '404': error(
            "No such run in the caller's scope, or no stored events (`run.not_found`, `run.no_evidence`)",
          ),
          '413': error(
            "The run is over the service's proof size cap (`proof.too_large`, with `limit` and `max`); verify it with the CLI",
          ),
          '429': error("Over the caller's proof budget (`rate.proof_user`); see Retry-After"),
          ...errors('401'),
        },
      },
    },
  };
}

/** The paths of one run: read, events, decisions, cancel. */
function runPaths(): Record<string, unknown> {
  return {
    '/v1/runs/{runId}': {
      get: {
        summary: 'One run in the caller scope',
        parameters: [runId],
        responses: {
          '200': { description: 'The run', ...json(RunDetailSchema) },
          '404': error("No such run in the caller's scope (`run.not_found`)"),
          ...errors('401'),
        },
      },
    },
    '/v1/runs/{runId}/events': {
      get: {
        summary:
          "The run's public events as Server-Sent Events (id = sequence; resumable with Last-Event-ID)",
        parameters: [
          runId,
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
          { name: 'after', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'view', in: 'query', required: false, schema: { enum: ['public', 'internal'] } },
        ],
        responses: {
          '200': { description: 'The event stream', ...text('text/event-stream') },
          '403': error('Internal events need an operator with a role of `roles.internalEvents`'),
          '404': error("No such run in the caller's scope (`run.not_found`)"),
          ...errors('400', '401', '429'),
        },
      },
    },
    '/v1/runs/{runId}/decisions': {
      post: {
        summary: "Decide the pending action (signed by the service on the caller's behalf)",
        parameters: [runId],
        requestBody: { required: true, ...json(DecisionBodySchema, 'input') },
        responses: {
          '200': { description: "Accepted: the run's answer", ...json(DecisionAnswerSchema) },
          '403': error('This caller may not decide it: refused by the service or the run (`decision.*`)'),
          '404': error("No such run in the caller's scope (`run.not_found`)"),
          '409': error(
            'The run waits for something else or has ended (`signal.action_mismatch`, `signal.no_pending_action`, `run.closed`)',
          ),
          '422': error('Any other refusal by the run (`decision.*`)'),
          '504': OUTCOME_UNKNOWN,
          ...errors('400', '401', '413', '415', '429'),
        },
      },
    },
    '/v1/runs/{runId}/cancel': {
      post: {
        summary: 'Cancel the run',
        parameters: [runId],
        requestBody: { required: true, ...json(CancelBodySchema, 'input') },
        responses: {
          '200': { description: "Accepted: the run's answer", ...json(DecisionAnswerSchema) },
          '403': error('This caller may not cancel it (`decision.role_missing`)'),
          '404': error("No such run in the caller's scope (`run.not_found`)"),
          '409': error('The run has ended (`run.closed`)'),
          '422': error('Any other refusal by the run'),
          '504': OUTCOME_UNKNOWN,
          ...errors('400', '401', '413', '415', '429'),
        },
      },
    },
  };
}
