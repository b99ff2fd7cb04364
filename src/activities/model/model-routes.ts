import { dirname, resolve } from 'node:path';
import {
  MAX_PINNED_ROUTES,
  type ModelRoutePlan,
  type RoutePurposes,
  type PinnedModelRoute,
} from '../../contract/model-routes.js';
import { sha256Digest } from '../digest.js';
import { ModelError } from './errors.js';
import { AnthropicProvider } from './providers/anthropic-provider.js';
import { OpenAiProvider } from './providers/openai-provider.js';
import { readModelRoutesFile, type ModelRoutesFile, type RouteVersion } from './routes-file.js';
import { ScriptedProvider } from './scripted-provider.js';
import { loadModelScriptFile } from './scripted-script.js';
import type { ModelProvider } from './types.js';
import { defaultTokenizer, type TokenizerName } from '../context/tokenizer.js';

export type RoutesEnv = Readonly<Record<string, string | undefined>>;

/** One route version of a loaded routes file: its provider (with credentials) and what runs pin of it. */
export interface LoadedRoute {
  readonly key: string;
  readonly provider: ModelProvider;
  readonly model: string;
  readonly maxOutputTokens?: number;
  /** How the context builder counts this route's tokens. */
  readonly tokenizer: TokenizerName;
  readonly pinned: PinnedModelRoute;
}

/** What a route version is (its digest covers it); where and how a worker reaches it is left out. */
function identity(r: RouteVersion): unknown {
  const { baseUrl: _b, apiKeyEnv: _k, script: _s, ...what } = r;
  return what;
}

function pinnedOf(r: RouteVersion): PinnedModelRoute {
  return {
    provider: r.provider,
    model: r.model,
    digest: sha256Digest(identity(r)),
    contextWindow: r.contextWindow,
    maxAttempts: r.retry.maxAttempts,
    initialRetryMs: r.retry.initialIntervalMs,
    maxRetryMs: r.retry.maxIntervalMs,
    callSeconds: r.timeouts.callSeconds,
    ...(r.timeouts.heartbeatSeconds !== undefined ? { heartbeatSeconds: r.timeouts.heartbeatSeconds } : {}),
    fallbacks: r.fallbacks.map((f) => ({ route: f.route, on: [...f.on] })),
    ...(r.fast !== undefined ? { fast: { timeoutMs: r.fast.timeoutMs } } : {}),
  };
}

function providerOf(key: string, r: RouteVersion, baseDir: string, env: RoutesEnv): ModelProvider {
  const prices = { [key]: r.prices };
  const timeout = r.timeouts.requestMs !== undefined ? { timeoutMs: r.timeouts.requestMs } : {};
  if (r.provider === 'scripted') {
    return new ScriptedProvider(loadModelScriptFile(resolve(baseDir, r.script ?? '')), prices);
  }
  const variable = r.apiKeyEnv ?? '';
  const apiKey = env[variable]?.trim();
  if (!apiKey) {
    throw new ModelError(
      'model.routes_invalid',
      `model route ${key}: the environment variable ${variable} (apiKeyEnv) is not set`,
      { details: { route: key, variable } },
    );
  }
  if (r.provider === 'openai') {
    return new OpenAiProvider({
      baseURL: r.baseUrl ?? 'https://api.openai.com/v1',
      apiKey,
      model: r.model,
      prices,
      ...timeout,
    });
  }
  return new AnthropicProvider({
    baseURL: r.baseUrl ?? 'https://api.anthropic.com',
    apiKey,
    model: r.model,
    prices,
    ...timeout,
  });
}

/**
 * A validated routes file with a provider per route version (several providers in one worker). Keys
 * are read from the environment variables the file names, once, here; they never leave the providers.
 */
export class ModelRoutes {
  /** Digest of the whole file as validated (defaults applied, deployment fields included). */
  readonly digest: string;
  private readonly routes = new Map<string, LoadedRoute>();

  /**
   * @throws ModelError `model.routes_invalid` when a route's key variable is not set or its default
   *   plan pins more than {@link MAX_PINNED_ROUTES} route versions; `model.script_invalid` for a bad script.
   */
  constructor(
    readonly file: ModelRoutesFile,
    options: { readonly baseDir: string; readonly env: RoutesEnv; readonly source: string },
  ) {
    this.digest = sha256Digest(file);
    for (const [key, r] of Object.entries(file.routes)) {
      this.routes.set(key, {
        key,
        provider: providerOf(key, r, options.baseDir, options.env),
        model: r.model,
        ...(r.maxOutputTokens !== undefined ? { maxOutputTokens: r.maxOutputTokens } : {}),
        tokenizer: r.tokenizer ?? defaultTokenizer(r.provider, r.model),
        pinned: pinnedOf(r),
      });
    }
    const size = Object.keys(this.plan()?.routes ?? {}).length;
    if (size > MAX_PINNED_ROUTES) {
      throw new ModelError(
        'model.routes_invalid',
        `model routes ${options.source}: the purposes and their fallbacks name ${size} route versions; a run pins at most ${MAX_PINNED_ROUTES}`,
        { details: { source: options.source, path: 'purposes' } },
      );
    }
  }

  /** The route version runs pin when the starter names none. */
  get defaultRoute(): string {
    return this.file.purposes.default;
  }

  /** Every route version of the file. */
  all(): readonly LoadedRoute[] {
    return [...this.routes.values()];
  }

  has(key: string): boolean {
    return this.routes.has(key);
  }

  /**
   * What a new run pins: for no `route`, the file's purposes; for a route version of this file, that
   * version for every purpose. Each pinned route with its fallbacks. Undefined for a route this file
   * does not have (a route registered in code).
   */
  plan(route?: string): ModelRoutePlan | undefined {
    if (route !== undefined && !this.routes.has(route)) return undefined;
    const purposes: RoutePurposes = route !== undefined ? { default: route } : { ...this.file.purposes };
    const routes: Record<string, PinnedModelRoute> = {};
    const pin = (key: string): PinnedModelRoute => {
      const r = this.routes.get(key);
      if (!r) throw new Error(`model route ${key} is not in the routes file`); // the schema forbids it
      routes[key] = r.pinned;
      return r.pinned;
    };
    for (const primary of Object.values(purposes)) {
      if (primary === undefined) continue;
      for (const f of pin(primary).fallbacks) pin(f.route);
    }
    return { source: this.digest, purposes, routes };
  }
}

/**
 * Loads a routes file (JSON, or YAML by extension) and builds its providers.
 * @throws ModelError `model.routes_invalid` naming the file and the bad field or missing variable,
 *   `model.script_invalid` for a bad script of a scripted route.
 */
export function loadModelRoutes(path: string, env: RoutesEnv = process.env): ModelRoutes {
  const file = readModelRoutesFile(path);
  return new ModelRoutes(file, { baseDir: dirname(resolve(path)), env, source: path });
}
