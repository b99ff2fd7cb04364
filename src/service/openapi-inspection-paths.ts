import { EraseBodySchema, ErasedSchema } from './api-schemas.js';
import { error, errors, json, runId } from './openapi-parts.js';

/**
 * The paths that inspect one run for operators: an invocation's payloads, a model call's context
 * package; and the erasure of its erasable values.
 */
export function runInspectionPaths(): Record<string, unknown> {
  return {
    '/v1/runs/{runId}/erase': {
      post: {
        summary:
          "Crypto-shred a finished run's erasable values (all, at `paths`, or equal to `subject`), recording the caller and `reason` in the run's chained, signed erasure record",
        parameters: [runId],
        requestBody: { required: true, ...json(EraseBodySchema, 'input') },
        responses: {
          '200': { description: 'The erasure records (empty: nothing left to erase)', ...json(ErasedSchema) },
          '403': error('Erasure needs an operator with a role of `roles.erase` (`auth.role_missing`)'),
          '404': error(
            "No such run in the caller's scope, or no stored events (`run.not_found`, `run.no_evidence`)",
          ),
          '409': error(
            'The run has not ended (`run.active`), or another erasure of the run committed while this one ran (`erasure.conflict`: nothing erased; send it again)',
          ),
          '429': error("Over the caller's erasure rate (`rate.erasures_user`, `limits.erasuresPerUser`)"),
          ...errors('400', '401', '413', '415'),
        },
      },
    },
    '/v1/runs/{runId}/invocations/{seq}/payload': {
      get: {
        summary:
          "An invocation's arguments and each attempt's output from the evidence store: field rules applied, phones and secrets masked",
        parameters: [
          runId,
          { name: 'seq', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } },
        ],
        responses: {
          '200': {
            description: 'The payloads',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['runId', 'seq', 'tool', 'args', 'results'],
                  properties: {
                    runId: { type: 'string' },
                    seq: { type: 'integer' },
                    tool: { type: 'string' },
                    args: { type: 'object' },
                    results: { type: 'array', items: { type: 'object' } },
                  },
                },
              },
            },
          },
          '400': error('A bad invocation number (`request.invalid`)'),
          '403': error('Payloads need an operator with a role of `roles.internalEvents`'),
          '404': error(
            "No such run in the caller's scope, or no such invocation (`run.not_found`, `invocation.not_found`)",
          ),
          '429': error(
            "Over the caller's read rate (`rate.inspections_user`, `limits.inspectionsPerUser`); see `Retry-After`",
          ),
          ...errors('401'),
        },
      },
    },
    '/v1/runs/{runId}/context/{call}': {
      get: {
        summary:
          'The context package model call `call` was sent: items (kind, trust, access, source, tokens), what was left out and why; contents only with `reveal=content` (secrets masked, `restricted` never)',
        parameters: [
          runId,
          { name: 'call', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } },
          { name: 'reveal', in: 'query', required: false, schema: { type: 'string', enum: ['content'] } },
        ],
        responses: {
          '200': {
            description: 'The package',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['runId', 'call', 'packageId', 'items', 'leftOut', 'revealed'],
                  properties: {
                    runId: { type: 'string' },
                    call: { type: 'integer' },
                    packageId: { type: 'string' },
                    items: { type: 'array', items: { type: 'object' } },
                    leftOut: { type: 'array', items: { type: 'object' } },
                    revealed: { type: 'boolean' },
                  },
                },
              },
            },
          },
          '400': error('A bad call number or query (`request.invalid`)'),
          '403': error('Context packages need an operator with a role of `roles.internalEvents`'),
          '404': error(
            "No such run in the caller's scope, or no package for the call (`run.not_found`, `context.not_found`)",
          ),
          '429': error(
            "Over the caller's read rate (`rate.inspections_user`, `limits.inspectionsPerUser`); see `Retry-After`",
          ),
          ...errors('401'),
        },
      },
    },
  };
}
