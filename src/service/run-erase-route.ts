import type { FastifyInstance } from 'fastify';
import { erasureHeadSigner } from '../activities/attestation/erasure-head.js';
import { erasureOf } from '../activities/store/index.js';
import {
  ERASURE_CONFLICT,
  ERASURE_NOT_FOUND,
  ERASURE_RUN_ACTIVE,
} from '../activities/store/erasure-program.js';
import { isHarnessError } from '../contract/errors.js';
import { ApiError } from './api-error.js';
import { EraseBodySchema } from './api-schemas.js';
import { accessRun } from './run-access.js';
import { hasRole, parse, type RunRoutesOptions } from './route-options.js';
import { DEFAULT_ERASURE_RATE } from './service-config.js';
import { BucketMap } from './token-bucket.js';

/**
 * `POST /v1/runs/{id}/erase` (docs/api.md, "Erasure"): crypto-shred a finished run's erasable values
 * (docs/evidence-chain.md, "Erasure"), all of them or those at `paths` (inside the events' data) or
 * equal to `subject`, recording the verified caller (`sub`) as who asked, with `reason`. In order,
 * each refusal before anything is erased: 429 `rate.erasures_user` (the caller's bucket,
 * `limits.erasuresPerUser`, taken first), 400 `request.invalid`, 404 `run.not_found` (out of the
 * caller's scope: another tenant's run answers as no run), 403 `auth.role_missing` (not an operator
 * with a role of `roles.erase`), 409 `run.active` (the run has not ended), 404 `run.no_evidence` (the
 * store holds no event of it); and 409 `erasure.conflict` when another erasure of the run committed
 * while this one ran (PostgreSQL; nothing erased: sent again, it runs as an erasure after that one).
 * Answers 200 `{ erased: [record] }` (empty: nothing left to erase). The
 * record is chained to the run's previous erasure and signed with `erasureSigner` when the service has
 * an attestation key. The store's and Temporal's other errors are a 5xx, with nothing erased.
 */
export function registerEraseRoute(app: FastifyInstance, o: RunRoutesOptions): void {
  const rate = o.config.limits.erasuresPerUser ?? DEFAULT_ERASURE_RATE;
  const buckets = new BucketMap(rate.perSecond, rate.burst);
  const sign = o.erasureSigner ? erasureHeadSigner(o.erasureSigner) : undefined;
  app.post<{ Params: { runId: string } }>('/v1/runs/:runId/erase', async (req) => {
    const caller = o.callerOf(req);
    const wait = buckets.take(`${caller.tenant}\u0000${caller.user}`, o.arrivedAt(req));
    if (wait > 0)
      throw new ApiError(
        429,
        'rate.erasures_user',
        `more than ${rate.perSecond} erasures per second for this user`,
        Math.ceil(wait / 1000),
      );
    const body = parse(EraseBodySchema, req.body, 'body');
    const runId = req.params.runId;
    const run = await accessRun(o, caller, runId);
    if (!(caller.kind === 'operator' && hasRole(caller, o.config.roles.erase)))
      throw new ApiError(
        403,
        'auth.role_missing',
        `erasing a run's values needs an operator with one of the roles ${o.config.roles.erase.join(', ')}`,
      );
    if (run.running)
      throw new ApiError(409, 'run.active', `run ${runId} has not ended: erase its values once it has`);
    try {
      const erased = await erasureOf(o.store).erase(
        {
          runId,
          ...(body.paths ? { paths: body.paths } : {}),
          ...(body.subject !== undefined ? { subject: body.subject } : {}),
          reason: body.reason,
          actor: caller.user,
          at: new Date().toISOString(),
        },
        sign,
      );
      o.metrics.count('harness_erasures_total', { outcome: erased.length > 0 ? 'erased' : 'nothing' });
      return { erased };
    } catch (err) {
      if (!isHarnessError(err)) throw err;
      if (err.code === ERASURE_NOT_FOUND) throw new ApiError(404, 'run.no_evidence', err.message);
      if (err.code === ERASURE_RUN_ACTIVE) throw new ApiError(409, 'run.active', err.message);
      if (err.code === ERASURE_CONFLICT) throw new ApiError(409, 'erasure.conflict', err.message);
      throw err;
    }
  });
}
