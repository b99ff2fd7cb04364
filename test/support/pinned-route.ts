import type { CompositionExtension } from '../../apps/refund/composition.js';
import { REFUND_SCRIPT } from '../../apps/refund/refund-script.js';
import { parseModelScript, ScriptedProvider } from '../../src/worker/index.js';

/** The route the config-pin tests' runs pin: the refund script under a route only their workers serve. */
export const PINNED_ROUTE = 'scripted/pinned';

/**
 * `scripted/pinned` (the refund script) served under the model name `model`: a worker built with
 * another name has another definition of the route (a build that changed a route in code).
 */
export function pinnedRoute(model: string): CompositionExtension {
  return (_registry, models) =>
    void models.register(
      PINNED_ROUTE,
      new ScriptedProvider(parseModelScript(REFUND_SCRIPT, PINNED_ROUTE)),
      model,
    );
}

/** The tests' worker processes: `HARNESS_TEST_PINNED_ROUTE=<model name>` serves {@link PINNED_ROUTE}. */
export function pinnedRouteFromEnv(env: NodeJS.ProcessEnv): CompositionExtension[] {
  const model = env.HARNESS_TEST_PINNED_ROUTE?.trim();
  return model ? [pinnedRoute(model)] : [];
}
