import { hostname } from 'node:os';
import { HarnessError } from '../contract/errors.js';
import type { ToolDefinition, ToolExecutor } from '../contract/tool.js';
import { ModelRouter } from '../activities/model-router.js';
import { loadModelRoutes, type ModelRoutes } from '../activities/model/model-routes.js';
import { loadBundleCatalog, type BundleCatalog } from '../activities/bundles/bundle-catalog.js';
import { BundleError } from '../activities/bundles/bundle-error.js';
import { resolveRolloutSecret } from '../activities/bundles/rollout-secret.js';
import type { WorkerComposition } from './app.js';
import type { ModelProvider } from '../activities/model/types.js';
import { openEvidenceStore } from '../activities/store/open-evidence-store.js';
import type { EvidenceStore } from '../contract/evidence-store.js';
import { sha256Digest } from '../activities/digest.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import type { PrincipalRegistry } from '../contract/principals.js';
import { resolvePrincipals } from '../activities/authz/principal-registry.js';
import { resolveAttestation } from '../activities/attestation/chain-head-signer.js';
import { SqlEvidenceStore } from '../activities/store/sql-evidence-store.js';
import { erasableRule, type ErasableFields, type ErasableRule } from '../contract/erasable-rule.js';

/** A model route: the provider and the model name it is asked for. */
export interface ModelRouteSpec {
  readonly provider: ModelProvider;
  readonly model: string;
}

export interface ComposeWorkerOptions {
  /** The app's tools: a registry, or definitions with their executors (registered here). */
  readonly tools: ToolRegistry | readonly { definition: ToolDefinition; executor: ToolExecutor }[];
  /** Model routes by name (a run pins one), or a router. */
  readonly models: ModelRouter | Readonly<Record<string, ModelRouteSpec>>;
  /** The evidence store, or its URL (`sqlite:<path>`, `postgres://...`). */
  readonly store: EvidenceStore | string;
  /**
   * A model routes file (docs/models.md): loaded routes or a file path. Default: the file named by
   * `HARNESS_MODEL_ROUTES`, else none. Its route versions are served beside `models`.
   */
  readonly routes?: ModelRoutes | string;
  /**
   * Control-plane bundles (docs/control-plane.md): a loaded catalog or a folder. Default: the folder
   * named by `HARNESS_BUNDLES`, else none (every run uses the prompts and policies in code).
   */
  readonly bundles?: BundleCatalog | string;
  /**
   * The secret that salts rollout arms (docs/control-plane.md), at least 32 bytes; used when the
   * bundles have a rollout and their catalog none. Default: `HARNESS_ROLLOUT_SECRET`, the file named by
   * `HARNESS_ROLLOUT_SECRET_FILE`, else `.data/keys/rollout-secret` (created on first use). Share one
   * secret across the workers of a task queue. It never enters workflow input, history or events.
   */
  readonly rolloutSecret?: string | Uint8Array;
  /**
   * The route of runs that name none (default: the routes file's `purposes`, else the only route,
   * when there is one).
   */
  readonly defaultModelRoute?: string;
  /** Worker identity (default `host:pid`). */
  readonly identity?: string;
  /** Closed with the composition after the store (MCP servers, business stores). */
  readonly onClose?: () => Promise<void> | void;
  /**
   * The principal registry (docs/authorization.md): a registry object or a file path. Default: the file
   * named by `HARNESS_PRINCIPALS`, else none (every decision is refused).
   */
  readonly principals?: PrincipalRegistry | string;
  /**
   * Erasable fields the app declares besides the harness's default rule (docs/evidence-chain.md,
   * "Which values are erasable"): key names (`zip`, `paymentMethodId`) and, per event type, pointers
   * inside the event's data. The store commits their values (crypto-shredding); the declaration is part
   * of the run config pin. Default: the default rule only.
   */
  readonly erasable?: ErasableFields;
  /**
   * Environment for `HARNESS_PRINCIPALS`, `HARNESS_MODEL_ROUTES`, `HARNESS_BUNDLES`,
   * `HARNESS_ROLLOUT_SECRET(_FILE)` and route API keys
   * (default process.env).
   */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * A worker composition from an app's parts: registers the tools (with every registration rule), maps
 * the model routes, opens the store when given a URL, and computes the config digest runs pin.
 * @throws the registry's errors (`registry.*`) for a bad or conflicting tool, `worker.no_model_route`
 *   when no default route can be chosen or it is not registered, `model.routes_invalid` for an
 *   unreadable or invalid routes file (the worker does not start), `worker.route_conflict` when a
 *   file's route version is also registered in code, `bundle.invalid` for an unreadable or invalid
 *   bundles folder, a rollout naming a route the worker does not serve, or a bad or uncreatable
 *   rollout secret (the worker does not start),
 *   `principals.*` for an unreadable or
 *   invalid principal registry, `attestation.unreadable` for a `HARNESS_ATTESTATION_KEY` that is not an
 *   Ed25519 key file (docs/evidence-chain.md), `erasable.invalid` for an erasable-fields declaration
 *   outside its schema or naming a key the verifier needs, `erasable.unsupported` for a declaration
 *   with a store object that is not the harness SQL store, and the store's errors.
 */
export async function composeWorker(o: ComposeWorkerOptions): Promise<WorkerComposition> {
  const erasable = declaredErasable(o.erasable);
  let registry: ToolRegistry;
  if (o.tools instanceof ToolRegistry) {
    registry = o.tools;
  } else {
    registry = new ToolRegistry();
    for (const t of o.tools) registry.register(t.definition, t.executor);
  }
  let models: ModelRouter;
  if (o.models instanceof ModelRouter) {
    models = o.models;
  } else {
    models = new ModelRouter();
    for (const [route, spec] of Object.entries(o.models)) models.register(route, spec.provider, spec.model);
  }
  const env = o.env ?? process.env;
  const routesSource = o.routes ?? (env.HARNESS_MODEL_ROUTES?.trim() || undefined);
  const routesFile = typeof routesSource === 'string' ? loadModelRoutes(routesSource, env) : routesSource;
  if (routesFile) models.useRoutes(routesFile);
  const routes = models.routeNames().sort();
  const defaultModelRoute =
    o.defaultModelRoute ?? routesFile?.defaultRoute ?? (routes.length === 1 ? routes[0] : undefined);
  if (defaultModelRoute === undefined || !routes.includes(defaultModelRoute)) {
    throw new HarnessError(
      'worker.no_model_route',
      defaultModelRoute === undefined
        ? `name a defaultModelRoute (routes: ${routes.join(', ') || 'none'})`
        : `the default model route ${defaultModelRoute} is not registered (routes: ${routes.join(', ')})`,
      { routes },
    );
  }
  const bundlesSource = o.bundles ?? (env.HARNESS_BUNDLES?.trim() || undefined);
  const loaded = typeof bundlesSource === 'string' ? loadBundleCatalog(bundlesSource) : bundlesSource;
  for (const route of loaded?.rolloutRoutes() ?? []) {
    if (!routesFile?.has(route))
      throw new BundleError(
        'bundle.invalid',
        `bundle rollout: modelRoute ${route} is not a version of this worker's routes file (HARNESS_MODEL_ROUTES)`,
        { path: 'modelRoute', route },
      );
  }
  // A rollout assigns arms under the workers' secret, so a starter cannot pick one by its workflow id.
  const bundles =
    loaded?.rollout && !loaded.salted
      ? loaded.withRolloutSecret(resolveRolloutSecret({ secret: o.rolloutSecret, env }).secret)
      : loaded;
  const principals = resolvePrincipals(o.principals, env);
  const attestation = resolveAttestation(env);
  const store =
    typeof o.store === 'string'
      ? await openEvidenceStore(o.store, erasable ? { erasable } : {})
      : storeWithErasable(o.store, erasable);
  return {
    registry,
    store,
    models,
    identity: o.identity ?? `${hostname()}:${process.pid}`,
    configDigest: sha256Digest({
      tools: registry.snapshot().digest,
      routes,
      ...(routesFile ? { routesFile: routesFile.digest } : {}),
      ...(bundles ? { bundles: bundles.digest } : {}),
      ...(erasable ? { erasable: erasable.declared } : {}),
    }),
    ...(bundles ? { bundles } : {}),
    defaultModelRoute,
    principals,
    ...(attestation ? { attestation } : {}),
    ...(erasable ? { erasable } : {}),
    close: async () => {
      await store.close();
      await o.onClose?.();
    },
  };
}

/** The app's declaration as a rule, `undefined` when it declares nothing. @throws `erasable.invalid`. */
function declaredErasable(declared: ErasableFields | undefined): ErasableRule | undefined {
  if (declared === undefined) return undefined;
  const rule = erasableRule(declared);
  return rule.keys.size === 0 && rule.paths.size === 0 ? undefined : rule;
}

/**
 * The app's store object writing under `rule`: the harness SQL store, on the same connections.
 * @throws HarnessError `erasable.unsupported` for another store (it keeps no commitments).
 */
function storeWithErasable(store: EvidenceStore, rule: ErasableRule | undefined): EvidenceStore {
  if (rule === undefined) return store;
  if (store instanceof SqlEvidenceStore) return store.withErasable(rule);
  throw new HarnessError(
    'erasable.unsupported',
    'erasable fields were declared, but the evidence store is not the harness SQL store (openEvidenceStore), which alone keeps commitments',
  );
}
