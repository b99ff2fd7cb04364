import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import {
  DefaultLogger,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  type LogLevel,
} from '@temporalio/worker';
import { bundleWorkflows, createHarnessClient, HarnessError, resolveTemporal } from '../../../src/index.js';
import { readRetailTasksFile } from '../gold/retail-tasks.js';
import type { RetailEvalArgs } from './eval-args.js';
import { renderMarkdown } from './report.js';
import { dbJsonPathFor, runRetailEval } from './run-eval.js';

/** The retail app's workflows module (the routed profile's bundle entry). */
export const RETAIL_WORKFLOWS_PATH = fileURLToPath(new URL('../workflow/workflows.ts', import.meta.url));

/** Native and SDK logs to stderr (level HARNESS_LOG_LEVEL, default WARN), so stdout carries only the report. */
function installStderrRuntime(): void {
  const level = (process.env.HARNESS_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  try {
    Runtime.install({
      logger: new DefaultLogger(level, (entry) =>
        process.stderr.write(
          `${entry.level} ${entry.message} ${entry.meta ? JSON.stringify(entry.meta) : ''}\n`,
        ),
      ),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} } },
    });
  } catch {
    /* a runtime is already installed; keep it */
  }
}

/**
 * `npm run eval:retail -- <tasks.json> ...` (apps/retail/eval/main.ts): read and filter the tasks,
 * connect to TEMPORAL_ADDRESS or the local dev server (started when none runs), bundle the retail
 * workflows (or use HARNESS_WORKFLOW_BUNDLE), run the scenarios with concurrency
 * HARNESS_EVAL_CONCURRENCY (default 3), write the reports and print the JSON or Markdown report.
 *
 * @returns 0 when every scenario passed, 1 when any failed, 2 when the evaluation could not run (bad
 *   tasks file, no db.json, no workflows module, no server, no scenario). Never throws.
 */
export async function runRetailEvalCommand(args: RetailEvalArgs): Promise<number> {
  let target: Awaited<ReturnType<typeof resolveTemporal>> | undefined;
  let connection: Connection | undefined;
  let native: NativeConnection | undefined;
  try {
    let tasks = readRetailTasksFile(args.tasksFile);
    if (args.taskIds.length > 0) {
      const unknown = args.taskIds.filter((id) => !tasks.some((t) => t.id === id));
      if (unknown.length > 0) throw new Error(`no task ${unknown.join(', ')} in ${args.tasksFile}`);
      tasks = tasks.filter((t) => args.taskIds.includes(t.id));
    }
    if (args.limit !== undefined) tasks = tasks.slice(0, args.limit);
    const dbJsonPath = dbJsonPathFor(args.tasksFile);
    if (!existsSync(dbJsonPath)) throw new Error(`no db.json at ${dbJsonPath} (set HARNESS_RETAIL_DB)`);
    const bundlePath = process.env.HARNESS_WORKFLOW_BUNDLE;
    if (!bundlePath && !existsSync(RETAIL_WORKFLOWS_PATH))
      throw new Error(
        `the retail workflows module ${RETAIL_WORKFLOWS_PATH} is not there (the routed profile)`,
      );
    if (args.variants.size === 0) throw new Error('no variant to run');
    installStderrRuntime();
    target = await resolveTemporal({ log: (l) => console.error(l) });
    connection = await Connection.connect(target.connectionOptions);
    native = await NativeConnection.connect(target.connectionOptions);
    const client = createHarnessClient({ connection, namespace: target.namespace });
    const workflowBundle = bundlePath
      ? { codePath: bundlePath }
      : await bundleWorkflows({ workflowsPath: RETAIL_WORKFLOWS_PATH });
    const result = await runRetailEval({
      tasks,
      tasksFile: args.tasksFile,
      dbJsonPath,
      variants: args.variants,
      ...(args.out !== undefined ? { out: args.out } : {}),
      client,
      connection: native,
      namespace: target.namespace,
      workflowBundle,
      concurrency: Number(process.env.HARNESS_EVAL_CONCURRENCY ?? 3),
      address: target.connectionOptions.address,
      log: (l) => console.error(l),
    });
    if (result.report.scenarios.length === 0)
      throw new Error('no scenario: no task has the shape of the asked variants');
    if (args.json) console.log(JSON.stringify(result.report, null, 1));
    else console.log(renderMarkdown(result.report));
    console.error(`reports: ${result.jsonPath} ${result.markdownPath}`);
    return result.report.scenarios.every((s) => s.passed) ? 0 : 1;
  } catch (err) {
    const code = err instanceof HarnessError ? `${err.code}: ` : '';
    console.error(`eval:retail failed: ${code}${err instanceof Error ? err.message : String(err)}`);
    return 2;
  } finally {
    await connection?.close().catch(() => undefined);
    await native?.close().catch(() => undefined);
    await target?.stop().catch(() => undefined);
  }
}
