import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { CONFIG_CHANGED } from '../contract/failure-types.js';
import type { ErasableRule } from '../contract/erasable-rule.js';
import type { RunConfigPin, RunConfigScope } from '../contract/run-config.js';
import { sha256Digest } from './digest.js';
import type { ModelRouter } from './model-router.js';

/** The parts of a worker composition a run's config pin covers. */
export interface RunConfigSources {
  readonly models?: ModelRouter;
  /**
   * The app's declared erasable fields (contract/erasable-rule.ts): which values the store commits
   * instead of keeping in the chained body. Absent: the default rule only.
   */
  readonly erasable?: ErasableRule;
}

/**
 * The **run config digest**: `sha256:` of what this worker has under `scope`: the definition of the
 * pinned model route (provider, model name, routes-file digest, window, answer bound, tokenizer; never
 * a credential), and the app's declared erasable fields when it declares any (left out otherwise, so
 * the digests of workers without a declaration are those from before). What this worker lacks is
 * part of the digest as missing, so a worker without it has another digest. Not the worker's `configDigest` (its whole configuration, for display): tools,
 * routes and bundles the run does not use never count. Never throws.
 */
export function runConfigDigest(sources: RunConfigSources, scope: RunConfigScope): string {
  return sha256Digest({
    modelRoute: { route: scope.modelRoute, served: sources.models?.definitionOf(scope.modelRoute) ?? null },
    ...(sources.erasable ? { erasable: sources.erasable.declared } : {}),
  });
}

/**
 * Refuse a call whose run pinned another configuration than this worker has under the pin's scope
 * (`configPin`, runs since `agent-run-config-pin-v1`). Call it before anything is recorded. Nothing
 * without a pin.
 * @throws ApplicationFailure `worker.config_changed` (non-retryable: the run schedules the call again
 *   for another worker without spending an attempt) naming both digests and what the call is.
 */
export function refuseChangedConfig(
  sources: RunConfigSources,
  pin: RunConfigPin | undefined,
  call: { readonly runId: string; readonly what: string },
): void {
  if (pin === undefined) return;
  const served = runConfigDigest(sources, pin);
  if (served === pin.digest) return;
  log.warn('call refused', { runId: call.runId, call: call.what, code: CONFIG_CHANGED });
  throw ApplicationFailure.create({
    type: CONFIG_CHANGED,
    nonRetryable: true,
    message: `${CONFIG_CHANGED}: ${call.what}: this worker's configuration under the run's config pin (model route ${pin.modelRoute}) is ${served}, the run pinned ${pin.digest}`,
  });
}
