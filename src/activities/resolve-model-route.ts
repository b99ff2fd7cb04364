import { ApplicationFailure } from '@temporalio/common';
import { isHarnessError } from '../contract/errors.js';
import type { ModelRouter, ResolvedRoute } from './model-router.js';

/**
 * What this worker lacks when it cannot serve a call's route: another worker of the task queue may
 * serve it (a rolling deploy, a worker started without a routes file), so the attempt is refused and
 * the activity's retry policy hands the call to a worker again.
 */
const REFUSED_ROUTE_CODES: ReadonlySet<string> = new Set(['model.unknown_route', 'model.route_changed']);

/**
 * The route version a call names, on this worker.
 * @throws ApplicationFailure `model.unknown_route` (the route is not registered here) or
 *   `model.route_changed` (this worker's version of it has other content than the run pinned): with
 *   `refuse` (the run reschedules refusals, `agent-run-worker-refusal-v1`) non-retryable, and the run
 *   schedules the call again without spending its attempts; else retryable: the call goes to a worker
 *   again, up to the model activity's attempts (then the run sees the failure, as before); any other
 *   error as thrown.
 */
export function resolveModelRoute(
  models: ModelRouter,
  route: string,
  digest: string | undefined,
  refuse = false,
): ResolvedRoute {
  try {
    return models.resolve(route, digest);
  } catch (err) {
    if (isHarnessError(err))
      throw ApplicationFailure.create({
        type: err.code,
        message: err.message,
        nonRetryable: refuse || !REFUSED_ROUTE_CODES.has(err.code),
      });
    throw err;
  }
}
