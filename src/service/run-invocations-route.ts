import type { FastifyInstance } from 'fastify';
import type { InvocationRecord } from '../contract/store-records.js';
import { accessRun } from './run-access.js';
import { requireInternalEvents, type RunRoutesOptions } from './route-options.js';

/** One tool invocation as the run page shows it: no arguments and no outputs, only what proves "once". */
export interface InvocationSummary {
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly effect: string;
  readonly argsDigest: string;
  readonly idempotencyKey: string;
  readonly intents: readonly { attempt: number; workerIdentity: string; recordedAt: string }[];
  readonly results: readonly {
    attempt: number;
    status: string;
    source: string;
    errorCode: string | null;
    externalId: string | null;
    recordedAt: string;
  }[];
}

/** The summary of a stored invocation (its first intent names the tool). */
export function summarizeInvocation(r: InvocationRecord): InvocationSummary | undefined {
  const first = r.intents[0];
  if (first === undefined) return undefined;
  return {
    seq: r.seq,
    tool: first.tool,
    version: first.version,
    effect: first.effect,
    argsDigest: first.argsDigest,
    idempotencyKey: first.idempotencyKey,
    intents: r.intents.map((i) => ({
      attempt: i.attempt,
      workerIdentity: i.workerIdentity,
      recordedAt: i.recordedAt,
    })),
    results: r.results.map((x) => ({
      attempt: x.attempt,
      status: x.status,
      source: x.source,
      errorCode: x.errorCode ?? null,
      externalId: x.externalId ?? null,
      recordedAt: x.recordedAt,
    })),
  };
}

/**
 * GET /v1/runs/:runId/invocations (docs/api.md): the run's tool invocations — intents and results per
 * attempt, idempotency keys, argument digests, never arguments or outputs — for an operator with a role
 * of `roles.internalEvents` (else 403 `auth.role_missing`); a run outside the caller's scope is 404.
 */
export function registerInvocationsRoute(app: FastifyInstance, o: RunRoutesOptions): void {
  app.get<{ Params: { runId: string } }>('/v1/runs/:runId/invocations', async (req) => {
    const caller = o.callerOf(req);
    await accessRun(o, caller, req.params.runId);
    requireInternalEvents(o, caller, 'invocations');
    const records = await o.store.listInvocations(req.params.runId);
    return {
      runId: req.params.runId,
      invocations: records.map(summarizeInvocation).filter((x) => x !== undefined),
    };
  });
}
