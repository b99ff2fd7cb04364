import { z } from 'zod';
import { ErrorSchema } from './api-schemas.js';

/** The pieces the OpenAPI document (openapi-document.ts) is built from: schemas, error answers, parameters. */
type Io = 'input' | 'output';
export const schema = (s: z.ZodType, io: Io) =>
  z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' });
/** A JSON body: requests as the service reads them (`input`), answers as it writes them (`output`). */
export const json = (s: z.ZodType, io: Io = 'output') => ({
  content: { 'application/json': { schema: schema(s, io) } },
});
export const text = (type: string) => ({ content: { [type]: { schema: { type: 'string' } } } });
export const error = (description: string) => ({ description, ...json(ErrorSchema) });

/** What any route may answer besides its own: a server error, or the service shutting down. */
export const SERVER_ERRORS = {
  '500': error('Internal error (`service.internal_error`, with `requestId`: see the service log)'),
  '503': error(
    'The service is closing (`service.closing`, Retry-After), or the namespace lacks the search attributes (`temporal.search_attributes_*`)',
  ),
};
/** The client errors of the `/v1` routes, each route picking those it can answer. */
const CLIENT_ERRORS = {
  '400': error('Invalid request (`request.invalid`, `request.invalid_cursor`...)'),
  '401': error('Missing, invalid or expired bearer token (`auth.*`)'),
  '413': error('Request body over 256 KiB (`request.too_large`)'),
  '415': error('A body that is not `application/json` (`request.invalid`)'),
  '429': error('Over an admission limit (`rate.*`); see Retry-After'),
};
export type ClientError = keyof typeof CLIENT_ERRORS;
/** `codes` of {@link CLIENT_ERRORS} and the server errors. */
export const errors = (...codes: ClientError[]) => ({
  ...Object.fromEntries(codes.map((c) => [c, CLIENT_ERRORS[c]])),
  ...SERVER_ERRORS,
});
/** A decision whose update ran out of time: the run may have taken it. */
export const OUTCOME_UNKNOWN = error(
  'The run did not answer in time; the decision may have been taken (`decision.outcome_unknown`, with `requestId`): read the run before sending it again',
);
/** The `runId` path parameter. */
export const runId = { name: 'runId', in: 'path', required: true, schema: { type: 'string' } };
