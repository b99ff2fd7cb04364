import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { QUERY_NAMES } from '../contract/visibility.js';
import type { RunView } from '../contract/run-view.js';
import { sendDecision, signedPayload } from '../client/decisions/send-decision.js';
import { ApiError } from './api-error.js';
import { CancelBodySchema, DecisionBodySchema } from './api-schemas.js';
import { decisionContext, gateDecision, type GateDecision } from './decision-gate.js';
import { accessRun } from './run-access.js';
import { decisionStatus, runDecision, type RunDecision } from './run-decisions.js';
import { onBehalfOf, parse, type RunRoutesOptions } from './route-options.js';

/**
 * `POST /v1/runs/{id}/decisions` and `/cancel` (docs/api.md, "Decisions"). In order, each refusal
 * before anything reaches the run: 429 `rate.decisions_user` (the caller's bucket, taken first), 404
 * `run.not_found` (out of scope), 409 `run.closed` / `signal.*` (nothing of this kind waits), 403 from
 * the service's gate (the token's kind and roles against the run's rules). Only then is a decision
 * signed on the caller's behalf and sent by the `decide` update. Accepted: 200 with the run's answer
 * (`DecisionAnswerSchema`). Refused by the run: 403, 409 or 422 (`decisionStatus`) in the service's one
 * error shape, `{ error: { code, message, actionId?, principal?, approvals? } }`. An update that ran
 * out of time (its RPC deadline) is 504 `decision.outcome_unknown`: the run may have taken it, so the
 * caller reads the run before sending it again. Temporal's other errors are a 500.
 */
export function registerDecisionRoutes(app: FastifyInstance, o: RunRoutesOptions): void {
  const decideFor = async (
    req: FastifyRequest<{ Params: { runId: string } }>,
    reply: FastifyReply,
    label: GateDecision,
    decision: (view: RunView) => RunDecision,
  ) => {
    const caller = o.callerOf(req);
    const rate = o.admission.admitDecision(caller, o.arrivedAt(req));
    if (rate) throw new ApiError(429, rate.code, rate.message, rate.retryAfterSeconds);
    // The view is asked together with the scope check: a decision needs it anyway (one round trip less).
    const run = await accessRun(o, caller, req.params.runId, { eagerView: true });
    if (!run.running)
      throw new ApiError(409, 'run.closed', `run ${req.params.runId} has ended (${run.executionStatus})`);
    const view = run.view ?? (await run.handle.query<RunView>(QUERY_NAMES.state));
    const d = decision(view);
    const refused = gateDecision(caller, decisionContext(o.composition, view, run.user), label);
    if (refused) {
      o.metrics.count('harness_decisions_total', { decision: label, outcome: 'refused_by_service' });
      throw new ApiError(403, refused.code, refused.message);
    }
    const payload = signedPayload(o.delegateKey, view, d.signal, d.fields, d.pending, {
      onBehalfOf: onBehalfOf(caller),
    });
    const outcome = await sendDecision(run.handle, d.signal, payload).catch((err: unknown) => {
      // The update may have reached the run before its deadline: an unknown outcome, never a failure.
      if (!(err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)) throw err;
      o.metrics.count('harness_decisions_total', { decision: label, outcome: 'unknown' });
      throw new ApiError(
        504,
        'decision.outcome_unknown',
        `run ${req.params.runId} did not answer in time; the ${label} may have been taken: read the run before sending it again`,
        undefined,
        { requestId: req.id },
      );
    });
    o.metrics.count('harness_decisions_total', {
      decision: label,
      outcome: outcome.accepted ? 'accepted' : 'refused',
    });
    if (outcome.accepted) return reply.code(200).send(outcome);
    // Refused by the run: the service's one error shape, with what the run said (counted by the error handler).
    const { accepted: _accepted, code, message, ...details } = outcome;
    throw new ApiError(decisionStatus(outcome), code, message, undefined, details);
  };

  app.post<{ Params: { runId: string } }>('/v1/runs/:runId/decisions', async (req, reply) => {
    const body = parse(DecisionBodySchema, req.body, 'body');
    return decideFor(req, reply, body.decision, (view) => runDecision(req.params.runId, view, body));
  });

  app.post<{ Params: { runId: string } }>('/v1/runs/:runId/cancel', async (req, reply) => {
    const body = parse(CancelBodySchema, req.body, 'body');
    return decideFor(req, reply, 'cancel', () => ({
      signal: 'cancelRun',
      fields: { reason: body.reason },
      pending: undefined,
    }));
  });
}
