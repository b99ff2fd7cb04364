import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type AppCompositionOptions,
  composeAppWorker,
  type ModelProvider,
  ModelRouter,
  ToolRegistry,
  type WorkerComposition,
} from '../../src/index.js';
import { RetailDbTemplate } from './db/retail-template.js';
import { GoldModelProvider } from './eval/gold-model.js';
import { goldScenario } from './eval/variants.js';
import { readRetailTasksFile } from './gold/retail-tasks.js';
import { openRetailBackend, retailDbUrl, type RetailBackend } from './tools/retail-backend.js';
import { retailToolDefinitions } from './workflow/retail-definitions.js';

/** τ²-bench's retail data shipped with the app (apps/retail/data, MIT). */
const DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url));

/** Where the app's settings come from. */
export interface RetailAppSettings {
  /** `RETAIL_DB_URL`: `postgres://…` or `sqlite:<path>`; default an in-memory SQLite database. */
  readonly dbUrl: string;
  /** `HARNESS_RETAIL_DB`: the `db.json` loaded into an empty database; default the shipped one. */
  readonly dbJsonPath: string;
  /** `HARNESS_RETAIL_TASKS`: the tasks whose gold routes the worker serves; default the shipped train tasks. */
  readonly tasksPath: string;
}

/** The retail app's settings from `env` (see {@link RetailAppSettings}). Never throws. */
export function retailAppSettings(env: NodeJS.ProcessEnv = process.env): RetailAppSettings {
  return {
    dbUrl: retailDbUrl(env),
    dbJsonPath: env.HARNESS_RETAIL_DB ?? `${DATA_DIR}db.json`,
    tasksPath: env.HARNESS_RETAIL_TASKS ?? `${DATA_DIR}tasks-train.json`,
  };
}

/** The retail app's worker composition over one shared retail database. */
export interface RetailAppComposition extends WorkerComposition {
  readonly backend: RetailBackend;
}

/**
 * The gold model routes `gold/<taskId>`, one per task of `tasksPath`: a model that plays the task's gold
 * actions through the routed profile's protocol (apps/retail/eval/gold-model.ts), what the app runs
 * without a model provider. None when the tasks file is not there.
 * @throws `retail.db_invalid` / the tasks file's errors when the files exist but are broken.
 */
function goldRoutes(settings: RetailAppSettings): Record<string, ModelProvider> {
  if (!existsSync(settings.tasksPath) || !existsSync(settings.dbJsonPath)) return {};
  const db = RetailDbTemplate.fromJsonFile(settings.dbJsonPath).fresh();
  try {
    const routes: Record<string, ModelProvider> = {};
    for (const task of readRetailTasksFile(settings.tasksPath))
      routes[`gold/${task.id}`] = new GoldModelProvider(goldScenario(task, db).script);
    return routes;
  } finally {
    db.close();
  }
}

/**
 * Build the retail app's worker composition: the sixteen retail tools (`retail.<name>@v1`) over the
 * database of `RETAIL_DB_URL` (PostgreSQL or SQLite, loaded from `db.json` when empty), the gold routes
 * `gold/<taskId>`, and the provider of `HARNESS_MODEL_PROVIDER` as route `env` (then the default
 * route; else `gold/0`). Every run of the worker shares the one database, as a real store's would.
 * Normal Node code (worker side).
 * @throws `retail.db_url_invalid`, `package.missing` (PostgreSQL without `pg`), the database's and
 *   the evidence store's errors, provider configuration errors; nothing is left open then.
 */
export async function createRetailAppComposition(
  options: AppCompositionOptions,
): Promise<RetailAppComposition> {
  const env = options.env ?? process.env;
  const settings = retailAppSettings(env);
  const models = new ModelRouter();
  for (const [route, provider] of Object.entries(goldRoutes(settings)))
    models.register(route, provider, provider.name);
  const backend = await openRetailBackend(settings.dbUrl, { dbJsonPath: settings.dbJsonPath });
  const registry = new ToolRegistry();
  try {
    for (const definition of retailToolDefinitions()) {
      const executor = backend.executors[definition.name];
      if (executor === undefined) throw new Error(`no executor for ${definition.name}`);
      registry.register(definition, executor);
    }
  } catch (err) {
    await backend.close();
    throw err;
  }
  // composeAppWorker closes the backend itself when composing fails.
  const worker = await composeAppWorker({
    registry,
    models,
    fallbackRoute: 'gold/0',
    options,
    onClose: () => backend.close(),
  });
  return { ...worker, backend };
}
