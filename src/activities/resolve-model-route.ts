import { ApplicationFailure } from '@temporalio/common';
import { isHarnessError } from '../contract/errors.js';
import type { ModelRouter, ResolvedRoute } from './model-router.js';

/**
 * The route version a call names, on this worker.
 * @throws ApplicationFailure `model.unknown_route` or `model.route_changed` (non-retryable, see
 *   {@link ModelRouter.resolve}); any other error as thrown.
 */
export function resolveModelRoute(
  models: ModelRouter,
  route: string,
  digest: string | undefined,
): ResolvedRoute {
  try {
    return models.resolve(route, digest);
  } catch (err) {
    if (isHarnessError(err))
      throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
    throw err;
  }
}
