import { HarnessError } from '../contract/errors.js';
import type { ModelRoutePlan } from '../contract/model-routes.js';
import type { ModelRoutes } from './model/model-routes.js';
import type { ModelProvider } from './model/types.js';
import { defaultTokenizer, type TokenizerName } from './context/tokenizer.js';

/** A model route resolved to a provider and the model name to ask for. */
export interface ResolvedRoute {
  readonly provider: ModelProvider;
  readonly model: string;
  /** Routes from a routes file: the digest of the version's definition (what runs pin). */
  readonly digest?: string;
  /** Routes from a routes file: the most tokens one answer may have. */
  readonly maxOutputTokens?: number;
  /** The tokens the model reads and writes in one call (the routes file's, pinned by runs). */
  readonly contextWindow: number;
  /** How the context builder counts the route's tokens. */
  readonly tokenizer: TokenizerName;
  /** True when the window comes from configuration (a routes file or `register` options). */
  readonly windowConfigured: boolean;
}

/** What {@link ModelRouter.register} may say of a route registered in code. */
export interface RegisterOptions {
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  readonly tokenizer?: TokenizerName;
}

/** The window of a route registered in code without one (docs/context.md). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * Maps route names (pinned by runs, e.g. `scripted/refund`, `support@v2`) to providers. Lives in
 * worker composition: providers hold credentials, which never reach workflow input, history or events.
 * Routes come from code ({@link register}) and from a routes file ({@link useRoutes}); one worker
 * serves any number of providers at once.
 */
export class ModelRouter {
  private readonly routes = new Map<string, ResolvedRoute>();
  private file: ModelRoutes | undefined;

  /**
   * Serve `route` (registered in code) with `provider`. Its window, answer bound and tokenizer come
   * from `options`; without a window the route gets {@link DEFAULT_CONTEXT_WINDOW} and no answer bound
   * is sent to the provider.
   */
  register(route: string, provider: ModelProvider, model: string, options: RegisterOptions = {}): this {
    this.routes.set(route, {
      provider,
      model,
      contextWindow: options.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      tokenizer: options.tokenizer ?? defaultTokenizer(provider.name, model),
      windowConfigured: options.contextWindow !== undefined,
      ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
    });
    return this;
  }

  /**
   * Serve every route version of a routes file (docs/models.md), and pin its routes for new runs.
   * @throws HarnessError `worker.route_conflict` when a version is already registered, or a second
   *   file is given.
   */
  useRoutes(routes: ModelRoutes): this {
    if (this.file) throw new HarnessError('worker.route_conflict', 'a worker takes one routes file');
    for (const r of routes.all()) {
      if (this.routes.has(r.key))
        throw new HarnessError('worker.route_conflict', `model route ${r.key} is registered twice`, {
          route: r.key,
        });
    }
    for (const r of routes.all()) {
      this.routes.set(r.key, {
        provider: r.provider,
        // The request names the route version (it selects the price); the provider asks for its model.
        model: r.key,
        digest: r.pinned.digest,
        ...(r.maxOutputTokens !== undefined ? { maxOutputTokens: r.maxOutputTokens } : {}),
        contextWindow: r.pinned.contextWindow,
        tokenizer: r.tokenizer,
        windowConfigured: true,
      });
    }
    this.file = routes;
    return this;
  }

  /** The routes file this worker serves, if any. */
  get routesFile(): ModelRoutes | undefined {
    return this.file;
  }

  /**
   * What a new run pins for `route` (the starter's; absent: the file's default purposes), or
   * undefined when the route is not one of the routes file's versions (or there is no file).
   */
  plan(route?: string): ModelRoutePlan | undefined {
    return this.file?.plan(route);
  }

  /**
   * The route a call names, exactly that version (never another one of the same name).
   * @throws HarnessError `model.unknown_route` when the route is not registered here;
   *   `model.route_changed` when the run pinned `digest` and this worker's version of
   *   the route has other content (a version must never change: a change is a new version).
   */
  resolve(route: string, digest?: string): ResolvedRoute {
    const r = this.routes.get(route);
    if (!r) {
      throw new HarnessError('model.unknown_route', `model route ${route} is not registered on this worker`, {
        route,
        known: [...this.routes.keys()],
      });
    }
    if (digest !== undefined && r.digest !== digest) {
      throw new HarnessError(
        'model.route_changed',
        `model route ${route} on this worker is not the version the run pinned (pinned ${digest}, served ${r.digest ?? 'a route registered in code'}): give changed routes a new version`,
        { route, pinned: digest, ...(r.digest !== undefined ? { served: r.digest } : {}) },
      );
    }
    return r;
  }

  /**
   * What this worker serves under `route` (a run's config pin covers it, run-config-digest.ts): the
   * provider, the model name, the routes file's digest, window, answer bound and tokenizer. Undefined
   * when the route is not registered here. Never a credential.
   */
  definitionOf(route: string): Readonly<Record<string, unknown>> | undefined {
    const r = this.routes.get(route);
    if (!r) return undefined;
    return {
      provider: r.provider.name,
      model: r.model,
      ...(r.digest !== undefined ? { digest: r.digest } : {}),
      contextWindow: r.contextWindow,
      ...(r.maxOutputTokens !== undefined ? { maxOutputTokens: r.maxOutputTokens } : {}),
      tokenizer: r.tokenizer,
    };
  }

  routeNames(): string[] {
    return [...this.routes.keys()];
  }
}
