import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MASK_PHONE_OBLIGATION, projectPublicValue } from '../client/evidence/public-projection.js';
import { maskSecrets } from '../workflows/index.js';
import { ApiError } from './api-error.js';
import { accessRun } from './run-access.js';
import { parse, requireInternalEvents, type RunRoutesOptions } from './route-options.js';

/** One invocation's payloads as a person may see them: field rules applied, phones and secrets masked. */
export interface InvocationPayload {
  readonly runId: string;
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly effect: string;
  readonly argsDigest: string;
  readonly args: unknown;
  readonly results: readonly { attempt: number; status: string; source: string; output: unknown }[];
}

const PathSchema = z.object({ runId: z.string(), seq: z.coerce.number().int().min(0).max(2_147_483_647) });

/** `value` with every string's secrets masked (`[secret]`). */
function maskStrings(value: unknown): unknown {
  if (typeof value === 'string') return maskSecrets(value);
  if (Array.isArray(value)) return value.map(maskStrings);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskStrings(v)]));
  return value;
}

/** What a reveal shows of a stored value: the public field rules, phones masked, secrets masked. */
const shown = (value: unknown): unknown =>
  maskStrings(projectPublicValue(value, { obligations: [MASK_PHONE_OBLIGATION] }));

/**
 * GET /v1/runs/:runId/invocations/:seq/payload (docs/api.md): the arguments of invocation `seq` (its
 * first intent's) and each attempt's output, read from the evidence store (never from the Temporal
 * history, so a codec-encrypted history stays encrypted), as the run page's "Reveal arguments and
 * result" shows them: fields the field rules classify `restricted` left out, `confidential` ones
 * `[redacted:confidential]`, phone numbers masked whatever the run's obligations, and secrets the
 * detector finds masked. For an operator with a role of `roles.internalEvents` (else 403
 * `auth.role_missing`); a run outside the caller's scope is 404 `run.not_found`; no such invocation
 * is 404 `invocation.not_found`; a bad number is 400 `request.invalid`; over the caller's read rate
 * (`limits.inspectionsPerUser`) 429 `rate.inspections_user` with `Retry-After`, before anything is read.
 * The store's errors are a 5xx and change nothing.
 */
export function registerPayloadRoute(app: FastifyInstance, o: RunRoutesOptions): void {
  app.get<{ Params: { runId: string; seq: string } }>(
    '/v1/runs/:runId/invocations/:seq/payload',
    async (req): Promise<InvocationPayload> => {
      const { runId, seq } = parse(PathSchema, req.params, 'path');
      const caller = o.callerOf(req);
      const rate = o.admission.admitInspection(caller, o.arrivedAt(req));
      if (rate) throw new ApiError(429, rate.code, rate.message, rate.retryAfterSeconds);
      await accessRun(o, caller, runId);
      requireInternalEvents(o, caller, 'payloads');
      const record = await o.store.getInvocation(runId, seq);
      const intent = record?.intents[0];
      if (record === undefined || intent === undefined)
        throw new ApiError(404, 'invocation.not_found', `${runId} has no invocation ${seq}`);
      return {
        runId,
        seq,
        tool: intent.tool,
        version: intent.version,
        effect: intent.effect,
        argsDigest: intent.argsDigest,
        args: shown(intent.args),
        results: record.results.map((r) => ({
          attempt: r.attempt,
          status: r.status,
          source: r.source,
          output: r.output === undefined ? null : shown(r.output),
        })),
      };
    },
  );
}
