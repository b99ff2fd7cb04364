import type { FastifyInstance } from 'fastify';
import { collectProofBundle } from '../activities/proof/collect-proof-bundle.js';
import { verifyProofBundle } from '../client/proof/verify-bundle.js';
import { ApiError } from './api-error.js';
import type { Caller } from './caller-identity.js';
import { accessRun } from './run-access.js';
import { hasRole, type RunRoutesOptions } from './route-options.js';
import { ProofBudget } from './proof-budget.js';
import { isHarnessError } from '../contract/errors.js';
import { PROOF_TOO_LARGE } from '../contract/proof-limits.js';

/**
 * The run's proof (docs/evidence-chain.md) for the run page, for an operator with a role of
 * `roles.internalEvents` (else 403 `auth.role_missing`; a run outside the caller's scope is 404):
 * - GET /v1/runs/:runId/verification: the verifier's report (`harness verify <runId>`'s checks, each
 *   with its reason code) over the run's store and Temporal history, with the service's attestation keys,
 *   each stored erasable value checked against its commitment (the report names no value);
 * - GET /v1/runs/:runId/bundle: the self-contained proof bundle (`harness export`), as a download, its
 *   erasable values withheld by policy in the chain and everywhere else in it.
 * Both are bounded (service config `proof`): each caller's requests per second and at once, taken when
 * the request arrives (429 `rate.proof_user` with Retry-After, before anything is read), and the size
 * of the run they read (413 `proof.too_large` naming the limit and the CLI commands that verify such a
 * run without a cap).
 * Failure semantics: the store's or Temporal's errors are a 5xx; a run with no stored events is 404
 * `run.no_evidence`.
 */
export function registerProofRoutes(app: FastifyInstance, o: RunRoutesOptions): void {
  const budget = new ProofBudget(o.config.proof);
  const limits = { maxEvents: o.config.proof.maxEvents, maxBytes: o.config.proof.maxBytes };
  const bundleOf = async (caller: Caller, runId: string, arrivedAt: number, withValues: boolean) => {
    const admitted = budget.admit(caller, arrivedAt);
    if ('code' in admitted)
      throw new ApiError(429, admitted.code, admitted.message, admitted.retryAfterSeconds);
    try {
      await accessRun(o, caller, runId);
      if (!(caller.kind === 'operator' && hasRole(caller, o.config.roles.internalEvents)))
        throw new ApiError(
          403,
          'auth.role_missing',
          `a run's proof needs an operator with one of the roles ${o.config.roles.internalEvents.join(', ')}`,
        );
      const bundle = await collectProofBundle(
        o.store,
        o.client,
        runId,
        o.attestation ?? null,
        new Date(),
        limits,
        { withValues },
      );
      if (bundle.chain.events.length === 0)
        throw new ApiError(404, 'run.no_evidence', `the evidence store holds no events of ${runId}`);
      return bundle;
    } catch (err) {
      if (isHarnessError(err) && err.code === PROOF_TOO_LARGE)
        throw new ApiError(413, err.code, err.message, undefined, err.details);
      throw err;
    } finally {
      admitted.release();
    }
  };
  app.get<{ Params: { runId: string } }>('/v1/runs/:runId/verification', async (req) => {
    const bundle = await bundleOf(o.callerOf(req), req.params.runId, o.arrivedAt(req), true);
    return verifyProofBundle(bundle, o.attestation !== undefined ? { attestation: o.attestation } : {});
  });
  app.get<{ Params: { runId: string } }>('/v1/runs/:runId/bundle', async (req, reply) => {
    const bundle = await bundleOf(o.callerOf(req), req.params.runId, o.arrivedAt(req), false);
    const file = `${req.params.runId.replace(/[^A-Za-z0-9._-]/g, '_')}.proof.json`;
    return reply.header('content-disposition', `attachment; filename="${file}"`).send(bundle);
  });
}
