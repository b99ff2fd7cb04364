import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { CONFIG_CHANGED, TOOLS_UNAVAILABLE } from '../contract/failure-types.js';
import type { ToolRegistry } from '../registry/index.js';
import type { PackedEvents } from '../contract/packed-events.js';
import type { EvidenceStore } from './store/index.js';
import type { LoadedPrincipals } from './authz/principal-registry.js';
import type {
  PrincipalsRequest,
  PrincipalsSnapshot,
  RunActivities,
  ToolSnapshot,
  ToolSnapshotRequest,
} from '../contract/activity-interfaces.js';
import type { ModelRoutePlan } from '../contract/model-routes.js';
import type { ModelRouter } from './model-router.js';
import type { BundlePin, ResolvedBundles } from '../contract/bundles.js';
import { isHarnessError } from '../contract/errors.js';
import { resolveWithoutBundles, type BundleCatalog } from './bundles/bundle-catalog.js';
import { storeEvents } from './store-events.js';
import type { ChainHeadReceipt } from '../contract/chain-head.js';
import type { ChainHeadSigner } from './attestation/chain-head-signer.js';
import { signedHeadOf } from './attestation/signed-head.js';
import { versionedName } from '../contract/versioned-name.js';
import type { RunConfigPin } from '../contract/run-config.js';
import { refuseChangedConfig, runConfigDigest, type RunConfigSources } from './run-config-digest.js';

export interface RunActivityDeps extends RunConfigSources {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  /** What a run that names no model route pins (the worker composition's default route). */
  readonly defaultModelRoute: string;
  /**
   * The worker composition's config digest (its whole configuration), recorded by runs without a
   * config pin whose starter did not pin one. Never compared; not a run config digest.
   */
  readonly configDigest: string;
  /** The principal registry decisions are checked against. */
  readonly principals: LoadedPrincipals;
  /** The worker's model routes: what a new run pins of a routes file (absent: nothing). */
  readonly models?: ModelRouter;
  /** The worker's control-plane bundles (docs/control-plane.md): what a new run pins, what a pin names. */
  readonly bundles?: BundleCatalog;
  /** The worker's attestation key: `recordEvents` returns the signed chain head (docs/evidence-chain.md). */
  readonly attestation?: ChainHeadSigner;
}

function withoutRoute(pin: BundlePin): BundlePin {
  const { modelRoute: _route, ...rest } = pin;
  return rest;
}

/** Activities that serve the run itself: the pinned tool snapshot and event writes. */
export function createRunActivities(deps: RunActivityDeps): RunActivities {
  /**
   * The bundles of a run: at its first start (`bundleSlots`) its rollout arm and that arm's bundles;
   * after continue-as-new (`bundlePin`) the content of exactly the pinned versions.
   * @throws ApplicationFailure `bundle.not_found` / `bundle.changed` (non-retryable) when this worker
   *   cannot serve the pin; the workflow turns them into a workflow task failure.
   */
  const bundlesFor = (req: ToolSnapshotRequest): ResolvedBundles | undefined => {
    try {
      if (req.bundlePin !== undefined)
        return deps.bundles ? deps.bundles.resolve(req.bundlePin) : resolveWithoutBundles(req.bundlePin);
      if (req.bundleSlots !== undefined) return deps.bundles?.pin(req.bundleSlots);
      return undefined;
    } catch (err) {
      if (isHarnessError(err))
        throw ApplicationFailure.create({
          type: err.code,
          nonRetryable: true,
          message: err.message,
          details: [err.details],
        });
      throw err;
    }
  };
  /**
   * What a run pins at its first start: its bundles, and its model routes for the starter's route
   * (else the rollout arm's route, else the routes file's purposes). A later generation keeps what it
   * carried.
   */
  const pinsFor = (req: ToolSnapshotRequest): { modelRoutes?: ModelRoutePlan; bundles?: ResolvedBundles } => {
    const resolved = bundlesFor(req);
    if (req.toolsDigest !== undefined || req.bundlePin !== undefined)
      return resolved ? { bundles: resolved } : {};
    // A starter that names a route keeps it: the arm's route is then not part of the run's pin.
    const bundles =
      resolved && req.modelRoute !== undefined && resolved.pin.modelRoute !== undefined
        ? { ...resolved, pin: withoutRoute(resolved.pin) }
        : resolved;
    const plan = deps.models?.plan(req.modelRoute ?? bundles?.pin.modelRoute);
    return { ...(plan ? { modelRoutes: plan } : {}), ...(bundles ? { bundles } : {}) };
  };
  /**
   * The run's config pin at its first start (`runConfig`): the scope it pins (the route the run pins
   * by the same rule as the workflow) and this worker's
   * digest under it. After continue-as-new (`configPin`): nothing, once this worker's digest matches.
   * @throws ApplicationFailure `worker.config_changed` (non-retryable) when it does not, or when this
   *   worker does not serve the route a new run pins: the workflow turns that into a workflow task
   *   failure, so another worker takes the task.
   */
  const configFor = (
    req: ToolSnapshotRequest,
    pins: { modelRoutes?: ModelRoutePlan; bundles?: ResolvedBundles },
  ): { runConfig?: RunConfigPin } => {
    if (req.configPin !== undefined)
      refuseChangedConfig(deps, req.configPin, {
        runId: Context.current().info.workflowExecution?.workflowId ?? '',
        what: 'the run',
      });
    if (req.runConfig !== true) return {};
    const modelRoute = req.modelRoute ?? pins.modelRoutes?.purposes.default ?? deps.defaultModelRoute;
    // A run pins only what the worker serves: one without the run's route refuses its start.
    if (deps.models && deps.models.definitionOf(modelRoute) === undefined)
      throw ApplicationFailure.create({
        type: CONFIG_CHANGED,
        nonRetryable: true,
        message: `${CONFIG_CHANGED}: this worker does not serve the model route the run pins (${modelRoute})`,
      });
    const scope = { modelRoute };
    return { runConfig: { ...scope, digest: runConfigDigest(deps, scope) } };
  };
  const principalsFor = (req: ToolSnapshotRequest): { principals?: PrincipalsSnapshot } =>
    req.withPrincipals
      ? { principals: { digest: deps.principals.digest, registry: deps.principals.registry } }
      : {};
  return {
    /**
     * The model-visible definitions of the profile's tools, from this worker's registry, and what the
     * run pins: the digest of exactly those definitions (name, version, effect, idempotentByKey, description, schema),
     * this worker's default model route and config digest. Tools outside the profile do not count, so
     * a worker with more tools, or other versions of tools the profile does not name, serves the run.
     *
     * Fails non-retryable `worker.tools_unavailable` when this worker lacks one of the profile's tools
     * or serves a different definition than the run pinned (`toolsDigest`); the workflow turns that
     * into a workflow task failure, so another worker takes the task (never a failed run); likewise
     * `worker.config_changed` when its configuration under the run's carried config pin differs
     * (`configPin`). With `runConfig`, also the run's config pin (`runConfig`). With
     * `expectedDigest` (runs from older clients) the whole registry must match: `run.registry_mismatch`.
     */
    // eslint-disable-next-line @typescript-eslint/require-await -- async: every refusal is a rejection
    async loadToolSnapshot(req: ToolSnapshotRequest): Promise<ToolSnapshot> {
      if (req.expectedDigest !== undefined) {
        const full = deps.registry.snapshot();
        if (full.digest !== req.expectedDigest) {
          throw ApplicationFailure.create({
            type: 'run.registry_mismatch',
            nonRetryable: true,
            message: `this worker's tool registry is ${full.digest}, the run pinned ${req.expectedDigest}`,
          });
        }
        const pins = pinsFor(req);
        return {
          definitions: deps.registry.snapshot(req.names).definitions,
          digest: full.digest,
          defaultModelRoute: deps.defaultModelRoute,
          configDigest: deps.configDigest,
          ...pins,
          ...principalsFor(req),
          ...configFor(req, pins),
        };
      }
      let selected;
      try {
        selected = deps.registry.snapshot(req.names);
      } catch (err) {
        throw ApplicationFailure.create({
          type: TOOLS_UNAVAILABLE,
          nonRetryable: true,
          message: `this worker cannot serve the profile's tools: ${(err as Error).message}`,
        });
      }
      if (req.toolsDigest !== undefined && selected.digest !== req.toolsDigest) {
        const served = selected.definitions.map((d) => versionedName(d.name, d.version)).join(', ');
        throw ApplicationFailure.create({
          type: TOOLS_UNAVAILABLE,
          nonRetryable: true,
          message: `this worker serves other definitions of the run's tools (${served}: ${selected.digest}); the run pinned ${req.toolsDigest}`,
        });
      }
      const pins = pinsFor(req);
      return {
        definitions: selected.definitions,
        digest: selected.digest,
        defaultModelRoute: deps.defaultModelRoute,
        configDigest: deps.configDigest,
        ...pins,
        ...principalsFor(req),
        ...configFor(req, pins),
      };
    },

    /**
     * This worker's principal registry and its digest; the registry is left out when the run already
     * holds that digest (history stays small across waits). Never fails.
     */
    // eslint-disable-next-line @typescript-eslint/require-await -- an activity is async
    async loadPrincipals(req: PrincipalsRequest): Promise<PrincipalsSnapshot> {
      const p = deps.principals;
      return req.knownDigest === p.digest ? { digest: p.digest } : { digest: p.digest, registry: p.registry };
    },

    /**
     * Store events exactly once (unique by run and sequence). As a local activity (the last flush), a
     * retried workflow task's copy of events already stored leaves the first record standing. With an
     * attestation key, returns the signed head of the run's chain at the batch's last event (the
     * history keeps it as this activity's result).
     * @throws ApplicationFailure `store.conflict` (non-retryable) when a sequence already holds other
     *   content; the store's other errors as they are.
     */
    async recordEvents(events: PackedEvents): Promise<ChainHeadReceipt | undefined> {
      const stored = await storeEvents(deps.store, events, { local: Context.current().info.isLocal }).catch(
        (err: unknown) => {
          // Another record under a sequence of these events stands for good (e.g. a workflow id used
          // again after its run closed: the first run's evidence): no retry can store these.
          if (isHarnessError(err, 'store.conflict'))
            throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
          throw err;
        },
      );
      return deps.attestation ? signedHeadOf(deps.store, deps.attestation, stored) : undefined;
    },
  };
}
