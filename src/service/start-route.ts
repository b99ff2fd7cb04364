import { createHash, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { isHarnessError } from '../contract/errors.js';
import { canonicalJson } from '../contract/canonical-json.js';
import { buildRunInput, resolvePolicy, resolveProfile } from '../client/build-run-input.js';
import { startAgentRun } from '../client/start-run.js';
import { ApiError } from './api-error.js';
import { IdempotencyKeySchema, StartRunBodySchema, type StartedRun } from './api-schemas.js';
import type { Refusal } from './admission.js';
import type { Caller } from './caller-identity.js';
import { accessRun } from './run-access.js';
import { hasRole, onBehalfOf, parse, type RunRoutesOptions } from './route-options.js';
import { checkStartCaps } from './start-caps.js';
import { versionedName } from '../contract/versioned-name.js';

/** What a start answers (201, or 200 for an idempotent replay): `StartedRunSchema`. */
export function startedRun(runId: string, executionStatus: string): StartedRun {
  return {
    runId,
    executionStatus,
    links: {
      self: `/v1/runs/${encodeURIComponent(runId)}`,
      events: `/v1/runs/${encodeURIComponent(runId)}/events`,
    },
  };
}

/** True when the caller's run `runId` exists (in their scope); false for a 404. */
async function runExists(o: RunRoutesOptions, caller: Caller, runId: string): Promise<boolean> {
  try {
    await accessRun(o, caller, runId);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return false;
    throw err;
  }
}

/**
 * `POST /v1/runs` (docs/api.md). The run's tenant and user come from the token, never from the body
 * (the body schema has no such field), and the service signs the start with its delegate key on the
 * caller's behalf, so the run holds them as verified facts (docs/authorization.md, "Who a run is
 * for"). An idempotent retry compares the digest of the request body, never the signed input (a start
 * token differs at each signing). Refusals, each before anything is started: 403
 * `auth.role_missing`, 400 `request.invalid` / `run.policy_not_allowed`, 403 `run.budget_over_cap` /
 * `run.model_route_not_allowed` (the caps), 429 (admission), 409 `idempotency.key_reused`. An
 * `Idempotency-Key` retry of a run that exists is 200 with `Idempotent-Replayed: true` whatever the
 * limits say, and gives back the rate tokens it took. Temporal's errors are a 500 (503 for missing
 * search attributes).
 */
export function registerStartRoute(app: FastifyInstance, o: RunRoutesOptions): void {
  const { client } = o;
  app.post('/v1/runs', async (req, reply) => {
    const caller = o.callerOf(req);
    if (!hasRole(caller, o.config.roles.start))
      throw new ApiError(
        403,
        'auth.role_missing',
        `starting a run needs one of the roles ${o.config.roles.start.join(', ')}`,
      );
    const body = parse(StartRunBodySchema, req.body, 'body');
    const keyHeader = req.headers['idempotency-key'];
    const idempotencyKey =
      keyHeader === undefined ? undefined : parse(IdempotencyKeySchema, keyHeader, 'Idempotency-Key');
    let input;
    try {
      const profile = resolveProfile(o.composition, body.profile);
      const policy = resolvePolicy(o.composition, body.policy, profile);
      input = buildRunInput({
        profile,
        ...(body.policy !== undefined ? { policy } : {}),
        task: body.task,
        ...(body.modelRoute !== undefined ? { modelRoute: body.modelRoute } : {}),
        ...(body.budget !== undefined ? { budget: body.budget } : {}),
        ...(body.approvalTimeoutSeconds !== undefined
          ? { approvalTimeoutSeconds: body.approvalTimeoutSeconds }
          : {}),
        ...(body.threadId !== undefined ? { threadId: body.threadId } : {}),
        // Who the run is for: the verified caller, whatever the body says.
        tenantId: caller.tenant,
        userId: caller.user,
      });
    } catch (err) {
      if (isHarnessError(err))
        throw new ApiError(400, err.code === 'run.invalid_input' ? 'request.invalid' : err.code, err.message);
      throw err;
    }
    const capped = checkStartCaps(o.config.caps, caller, o.config.roles.start, {
      ...(body.budget !== undefined ? { budget: body.budget } : {}),
      ...(body.modelRoute !== undefined ? { modelRoute: body.modelRoute } : {}),
    });
    if (capped) throw new ApiError(403, capped.code, capped.message);
    // The request, not the signed input: a retry signs again (another iat and jti) and is the same request.
    const requestDigest = `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
    const workflowId =
      idempotencyKey === undefined
        ? `run-${caller.tenant}-${randomUUID()}`
        : `run-${caller.tenant}-${createHash('sha256').update(`${caller.tenant}\u0000${caller.user}\u0000${idempotencyKey}`).digest('hex').slice(0, 32)}`;
    // An Idempotency-Key retry of a run that exists answers it (200) and spends nothing: no rate
    // tokens, no active-run count. Asked only when a limit refuses or the start finds the id taken, so
    // a first start pays no extra round trip.
    const replay = async () => {
      const existing = await accessRun(o, caller, workflowId);
      if (existing.memo.requestDigest !== requestDigest)
        throw new ApiError(
          409,
          'idempotency.key_reused',
          'this Idempotency-Key was used with another request',
        );
      void reply.header('idempotent-replayed', 'true');
      return reply.code(200).send(startedRun(workflowId, existing.executionStatus));
    };
    const refuse = async (r: Refusal) => {
      if (idempotencyKey !== undefined && (await runExists(o, caller, workflowId))) return replay();
      throw new ApiError(429, r.code, r.message, r.retryAfterSeconds);
    };
    // The rate first, judged at the request's arrival (a busy process handles requests later than they
    // came; the caller's rate is what they sent); then the active runs (visibility counts, shared).
    const rate = o.admission.admitStartRate(caller, o.arrivedAt(req));
    if (rate) return refuse(rate);
    const refusal = o.admission.admitActiveRuns(caller, await o.activeRuns.of(caller));
    if (refusal) {
      o.admission.refundStartRate(caller);
      return refuse(refusal);
    }
    try {
      await startAgentRun(client, {
        taskQueue: o.taskQueue,
        workflowId,
        input,
        memo: { requestDigest },
        rejectDuplicateId: idempotencyKey !== undefined,
        // Who the run is for, vouched by the service (the input's tenantId and userId are the caller's).
        signer: { key: o.delegateKey, onBehalfOf: onBehalfOf(caller) },
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || idempotencyKey === undefined) throw err;
      o.admission.refundStartRate(caller);
      return replay();
    }
    o.activeRuns.noteStarted(caller);
    o.metrics.count('harness_runs_started_total', {
      profile: versionedName(input.profile.name, input.profile.version),
    });
    return reply.code(201).send(startedRun(workflowId, 'RUNNING'));
  });
}
