import { HarnessError } from '../../contract/errors.js';
import type { ModelProvider } from '../model/types.js';

/** A model route resolved to a provider and the model name to ask for. */
export interface ResolvedRoute {
  readonly provider: ModelProvider;
  readonly model: string;
}

/**
 * Maps route names (pinned by runs, e.g. `scripted/refund`) to providers. Lives in worker composition:
 * providers hold credentials, which never reach workflow input, history or events.
 */
export class ModelRouter {
  private readonly routes = new Map<string, ResolvedRoute>();

  register(route: string, provider: ModelProvider, model: string): this {
    this.routes.set(route, { provider, model });
    return this;
  }

  /** @throws HarnessError `model.unknown_route` (non-retryable) when the route is not registered here. */
  resolve(route: string): ResolvedRoute {
    const r = this.routes.get(route);
    if (!r) {
      throw new HarnessError('model.unknown_route', `model route ${route} is not registered on this worker`, {
        route,
        known: [...this.routes.keys()],
      });
    }
    return r;
  }

  routeNames(): string[] {
    return [...this.routes.keys()];
  }
}
