import {
  type AppCompositionOptions,
  composeWorker,
  type ModelProvider,
  ModelRouter,
  ToolRegistry,
  type WorkerComposition,
} from '../../src/index.js';
import { registerRetailRunTools, RetailRunDbs, type RetailToolDrills } from './tools/run-db-tools.js';

export interface RetailCompositionOptions extends AppCompositionOptions {
  /** The runs' retail databases (by workflow id); default an empty set to bind runs to later. */
  readonly dbs?: RetailRunDbs;
  /** Model routes: route name -> provider (an evaluation's gold routes `gold/<taskId>/<variant>`). */
  readonly models?: Readonly<Record<string, ModelProvider>>;
  /** Fault drills (the evaluation's `fault` variant); none by default. */
  readonly drills?: RetailToolDrills;
  /** The default route of new runs; default the first of `models`. */
  readonly defaultModelRoute?: string;
}

/** The retail app's worker composition: the retail tools over the runs' databases, and its routes. */
export interface RetailComposition extends WorkerComposition {
  readonly dbs: RetailRunDbs;
}

/**
 * Build the retail app's worker composition: the sixteen retail tools (`retail.<name>@v1`) whose
 * executors run over the calling run's database (`dbs`, keyed by workflow id), and the given model
 * routes. Normal Node code (worker side).
 *
 * @throws the evidence store's errors (bad URL, schema too new) and the registries' conflicts.
 */
export async function createRetailComposition(options: RetailCompositionOptions): Promise<RetailComposition> {
  const dbs = options.dbs ?? new RetailRunDbs();
  const registry = new ToolRegistry();
  registerRetailRunTools(registry, dbs, options.drills);
  const models = new ModelRouter();
  for (const [route, provider] of Object.entries(options.models ?? {}))
    models.register(route, provider, provider.name);
  const defaultModelRoute = options.defaultModelRoute ?? Object.keys(options.models ?? {})[0];
  const worker = await composeWorker({
    tools: registry,
    models,
    store: options.storeUrl,
    ...(defaultModelRoute !== undefined ? { defaultModelRoute } : {}),
    ...(options.identity !== undefined ? { identity: options.identity } : {}),
    ...(options.principals !== undefined ? { principals: options.principals } : {}),
    env: options.env ?? process.env,
  });
  return { ...worker, dbs };
}
