import {
  type AppCompositionOptions,
  composeAppWorker,
  ModelRouter,
  parseModelScript,
  ScriptedProvider,
  ToolRegistry,
  type WorkerComposition,
} from '../../src/index.js';
import { openRefundStore, type RefundStore } from './business/refund-store.js';
import type { StoreLatency } from './business/store-latency.js';
import { REFUND_SCRIPT } from './refund-script.js';
import { registerRefundTools, type ToolFailureDrill } from './tools/refund-tools.js';

/** Adds an app part's tools and routes to a composition; returns what to close with it. */
export type CompositionExtension = (
  registry: ToolRegistry,
  models: ModelRouter,
) => Promise<(() => Promise<void>) | void> | (() => Promise<void>) | void;

/**
 * Fault-drill knobs of the refund store, for test and evaluation compositions only (the app itself
 * never reads them from its environment): injected store latency, and a connector whose outcome
 * cannot be checked automatically (no reconciler).
 */
export interface RefundDrills {
  readonly latency?: StoreLatency;
  /** `false`: refund.create has no reconciler. Default true. */
  readonly reconcile?: boolean;
  /** `false`: refund.create is not declared `idempotentByKey` (another definition). Default true. */
  readonly idempotentByKey?: boolean;
  /** Refund tools whose every call fails with a code (a broken connector). Default none. */
  readonly toolFailures?: readonly ToolFailureDrill[];
  /** Refund tools registered with another definition under the same version. Default none. */
  readonly changedDefinitions?: readonly string[];
}

export interface RefundCompositionOptions extends AppCompositionOptions {
  /** The refund app's business store (SQLite file; default `HARNESS_REFUND_DB` or `.data/refund.db`). */
  readonly refundStorePath: string;
  /** Extra scripted routes: route name -> script (validated; defaults applied). */
  readonly scripts?: Readonly<Record<string, unknown>>;
  /** More tools and routes in the same worker (other apps' parts, bench tools in the bench rig). */
  readonly extend?: readonly CompositionExtension[];
  /** Fault drills (tests, evaluation); none by default. */
  readonly drills?: RefundDrills;
}

/** The refund app's worker composition: the refund tools bound to its business store, and its routes. */
export interface RefundComposition extends WorkerComposition {
  readonly refundStore: RefundStore;
}

/**
 * Build the refund app's worker composition. Credentials for real model providers come from the
 * environment here and stay in the worker process. Fault drills come only from `drills`.
 * @throws the store's errors (bad URL, schema too new) and provider configuration errors.
 */
export async function createRefundComposition(options: RefundCompositionOptions): Promise<RefundComposition> {
  const refundStore = openRefundStore(
    options.refundStorePath,
    options.drills?.latency ? { latency: options.drills.latency } : {},
  );
  refundStore.seedIfEmpty();
  const registry = new ToolRegistry();
  registerRefundTools(registry, refundStore, {
    reconcile: options.drills?.reconcile ?? true,
    ...(options.drills?.idempotentByKey === false ? { idempotentByKey: false } : {}),
    ...(options.drills?.toolFailures ? { failures: options.drills.toolFailures } : {}),
    ...(options.drills?.changedDefinitions ? { changedDefinitions: options.drills.changedDefinitions } : {}),
  });
  const models = new ModelRouter();
  const closers: (() => Promise<void>)[] = [];
  for (const extend of options.extend ?? []) {
    const close = await extend(registry, models);
    if (close) closers.push(close);
  }
  models.register(
    'scripted/refund',
    new ScriptedProvider(parseModelScript(REFUND_SCRIPT, 'scripted/refund')),
    'scripted',
  );
  for (const [route, script] of Object.entries(options.scripts ?? {})) {
    models.register(route, new ScriptedProvider(parseModelScript(script, route)), 'scripted');
  }
  const closeParts = async (): Promise<void> => {
    for (const close of closers.reverse()) await close();
    refundStore.close();
  };
  const worker = await composeAppWorker({
    registry,
    models,
    fallbackRoute: 'scripted/refund',
    options,
    onClose: closeParts,
  });
  return { ...worker, refundStore };
}
