import { openRetailDbFile } from '../../apps/retail/db/retail-db.js';
import { registerRetailTools } from '../../apps/retail/tools/retail-tools.js';
import type { CompositionExtension } from '../../apps/refund/composition.js';
import { ScriptedProvider } from '../../src/index.js';
import { loadModelScriptFile } from '../../src/activities/model/scripted-script.js';
import type { ToolDefinition, ToolExecutor } from '../../src/index.js';

/** The scripted route of a worker process's retail script (`HARNESS_TEST_RETAIL_SCRIPT`). */
export const RETAIL_TEST_ROUTE = 'scripted/retail-test';

/**
 * A test worker process's retail part, from its environment: `HARNESS_TEST_RETAIL_DB` (a retail
 * database file the test wrote; several processes share it) registers the retail tools over it;
 * `HARNESS_TEST_RETAIL_SCRIPT` (a model script file) adds the route {@link RETAIL_TEST_ROUTE};
 * `HARNESS_TEST_RETAIL_WRITE_PAUSE_MS` makes every retail write pause that long after its transaction
 * committed, before it answers (a window to SIGKILL the worker with the effect done and unreported).
 * None set: nothing.
 */
export function retailTestTools(env: Readonly<Record<string, string | undefined>>): CompositionExtension[] {
  const path = env.HARNESS_TEST_RETAIL_DB;
  if (!path) return [];
  const pauseMs = Number(env.HARNESS_TEST_RETAIL_WRITE_PAUSE_MS ?? 0);
  return [
    (registry, models) => {
      const db = openRetailDbFile(path);
      registerRetailTools(
        {
          register: (definition: ToolDefinition, executor: ToolExecutor) =>
            registry.register(
              definition,
              pauseMs > 0 && definition.effect === 'write' ? paused(executor, pauseMs) : executor,
            ),
        },
        db,
      );
      const script = env.HARNESS_TEST_RETAIL_SCRIPT;
      if (script)
        models.register(RETAIL_TEST_ROUTE, new ScriptedProvider(loadModelScriptFile(script)), 'scripted');
      return () => Promise.resolve(db.close());
    },
  ];
}

function paused(executor: ToolExecutor, ms: number): ToolExecutor {
  return {
    ...executor,
    execute: async (ctx, call) => {
      const done = await executor.execute(ctx, call);
      await new Promise((r) => setTimeout(r, ms));
      return done;
    },
  };
}
