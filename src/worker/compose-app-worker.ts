import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ModelRouter } from '../activities/model-router.js';
import { providerFromEnv } from '../activities/model/provider-from-env.js';
import type { AppCompositionOptions, WorkerComposition } from './app.js';
import { composeWorker } from './compose-worker.js';
import type { ErasableFields } from '../contract/erasable-rule.js';

/** What an app brings to {@link composeAppWorker}. */
export interface AppWorkerParts {
  /** The app's tools, registered with their executors. */
  readonly registry: ToolRegistry;
  /** The app's own model routes (scripted, gold, ...); the `env` route is added here. */
  readonly models: ModelRouter;
  /**
   * The default route of new runs when `HARNESS_MODEL_PROVIDER` names no real provider and no routes
   * file (`HARNESS_MODEL_ROUTES`) names its own default.
   */
  readonly fallbackRoute: string;
  /** What `harness worker` / `harness dev` pass to the app's `createComposition`. */
  readonly options: AppCompositionOptions;
  /** Closes the app's own parts (business stores, MCP servers): with the composition, or when composing fails. */
  readonly onClose: () => Promise<void>;
  /** Erasable fields the app declares besides the default rule (`ComposeWorkerOptions.erasable`). */
  readonly erasable?: ErasableFields;
}

/**
 * An app's worker composition, built the way every app of the `harness` CLI builds it: the provider of
 * `HARNESS_MODEL_PROVIDER` (when set and not `scripted`) registered as route `env` with model
 * `HARNESS_MODEL` (default `default`) and made the default route of new runs, else `fallbackRoute`;
 * a routes file (`HARNESS_MODEL_ROUTES`) names its own default instead; identity and principals from
 * `options`. Credentials stay in the worker process (they are read from `options.env` here).
 * Normal Node code (worker side).
 * @throws provider configuration errors and everything {@link composeWorker} throws; the app's parts
 *   are closed (`onClose`) before the error leaves, so a failed start leaves nothing open.
 */
export async function composeAppWorker(parts: AppWorkerParts): Promise<WorkerComposition> {
  const env = parts.options.env ?? process.env;
  try {
    let defaultModelRoute = parts.fallbackRoute;
    if (env.HARNESS_MODEL_PROVIDER && env.HARNESS_MODEL_PROVIDER !== 'scripted') {
      parts.models.register('env', providerFromEnv(env), env.HARNESS_MODEL ?? 'default');
      defaultModelRoute = 'env';
    }
    return await composeWorker({
      tools: parts.registry,
      models: parts.models,
      store: parts.options.storeUrl,
      // A routes file (HARNESS_MODEL_ROUTES) names the default route of new runs itself.
      ...(env.HARNESS_MODEL_ROUTES ? {} : { defaultModelRoute }),
      ...(parts.options.identity !== undefined ? { identity: parts.options.identity } : {}),
      ...(parts.options.principals !== undefined ? { principals: parts.options.principals } : {}),
      ...(parts.erasable !== undefined ? { erasable: parts.erasable } : {}),
      env,
      onClose: parts.onClose,
    });
  } catch (err) {
    await parts.onClose();
    throw err;
  }
}
