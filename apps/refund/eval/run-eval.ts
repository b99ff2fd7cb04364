import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import {
  DefaultLogger,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  type LogLevel,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { bundleWorkflows, createHarnessClient, HarnessError, resolveTemporal } from '../../../src/index.js';

/** The repository this app lives in (reports go to its .data/eval by default). */
const refundAppRoot = fileURLToPath(new URL('../../../', import.meta.url));
import { runCase, type CaseRun, type EvalTemporal } from './case-driver.js';
import { mapLimited } from './concurrency.js';
import { loadEvalCases, type EvalCase } from './eval-case.js';
import { computeMetrics, evalSeedMetrics, evalSeedMetricsByArm } from './metrics.js';
import { renderMarkdown, summarizeCase, type EvalReport } from './report.js';

export interface RunEvalOptions {
  /** Folder of case files (searched recursively). */
  readonly dir: string;
  /** Where the report, failure samples and per-case stores go; default `.data/eval/<tag>`. */
  readonly out?: string;
  readonly temporal: EvalTemporal;
  readonly workflowBundle: WorkflowBundleWithSourceMap | { codePath: string };
  /** Cases in flight at once (each has its own worker); default 3, at most 8. */
  readonly concurrency?: number;
  /** Run every case under this policy (`name@vN`), e.g. to show what a looser policy breaks. */
  readonly policyOverride?: string;
  /** A bundles folder whose rollout gives each case's run an arm; the report then compares the arms. */
  readonly bundles?: string;
  readonly timeoutMsPerCase?: number;
  /** Only cases whose id is listed. */
  readonly caseIds?: readonly string[];
  readonly log?: (line: string) => void;
}

export interface EvalResult {
  readonly report: EvalReport;
  readonly runs: readonly CaseRun[];
  readonly jsonPath: string;
  readonly markdownPath: string;
}

/**
 * Run every case of `dir` as a real run on the server (see {@link runCase}), compute the metrics and
 * write `report.json` and `report.md` to the output folder, with failure samples under `failures/`.
 * @throws EvalCaseError for invalid cases (before anything runs); setup errors of stores and workers.
 */
export async function runEval(o: RunEvalOptions): Promise<EvalResult> {
  let cases: EvalCase[] = loadEvalCases(o.dir);
  if (o.caseIds) cases = cases.filter((c) => o.caseIds!.includes(c.case_id));
  const tag = `${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}-${randomUUID().slice(0, 6)}`;
  const out = resolve(o.out ?? join(refundAppRoot, '.data', 'eval', tag));
  mkdirSync(out, { recursive: true });
  const wanted = Number.isFinite(o.concurrency) ? Math.floor(o.concurrency!) : 3;
  const concurrency = Math.min(8, Math.max(1, wanted));
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const runs = await mapLimited(cases, concurrency, async (c) => {
    const r = await runCase(c, {
      temporal: o.temporal,
      workflowBundle: o.workflowBundle,
      workDir: join(out, 'runs'),
      failuresDir: join(out, 'failures'),
      runTag: tag,
      ...(o.policyOverride ? { policyOverride: o.policyOverride } : {}),
      ...(o.bundles ? { bundles: resolve(o.bundles) } : {}),
      ...(o.timeoutMsPerCase ? { timeoutMs: o.timeoutMsPerCase } : {}),
    });
    o.log?.(
      `${r.checks.passed ? 'pass' : 'FAIL'} ${c.case_id} ${r.observation.status} ${r.observation.durationMs} ms${r.checks.passed ? '' : `: ${r.checks.failures.join('; ')}`}`,
    );
    return r;
  });
  const records = runs.map((r) => ({ observation: r.observation, checks: r.checks }));
  const metrics = computeMetrics(records);
  const report: EvalReport = {
    schemaVersion: 1,
    casesDir: o.dir,
    policyOverride: o.policyOverride ?? null,
    startedAt,
    durationMs: Date.now() - started,
    concurrency,
    metrics,
    seedMetrics: evalSeedMetrics(
      metrics,
      records,
      runs.flatMap((r) => (r.evidence ? [r.evidence] : [])),
    ),
    ...(() => {
      const byArm = evalSeedMetricsByArm(
        runs.map((r, i) => ({ record: records[i]!, ...(r.evidence ? { evidence: r.evidence } : {}) })),
      );
      return byArm.length > 0 ? { seedMetricsByArm: byArm } : {};
    })(),
    cases: runs.map(summarizeCase),
  };
  const jsonPath = join(out, 'report.json');
  const markdownPath = join(out, 'report.md');
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(markdownPath, renderMarkdown(report));
  return { report, runs, jsonPath, markdownPath };
}

/**
 * Worker runtime for the command: native and SDK logs (level HARNESS_LOG_LEVEL, default WARN) go to
 * stderr, so stdout carries only the report (`--json` output stays parseable). Does nothing when a
 * runtime is already installed in this process.
 */
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
    /* a runtime is already installed (the CLI's); keep it */
  }
}

/**
 * `npm run eval -- <dir>` (apps/refund/eval/main.ts): connect to TEMPORAL_ADDRESS or the local dev server (starting it when none
 * runs), bundle the workflows (or use HARNESS_WORKFLOW_BUNDLE), run the cases with concurrency
 * HARNESS_EVAL_CONCURRENCY (default 3) and optional policy override HARNESS_EVAL_POLICY, write the
 * reports and print the JSON report (`json`) or the Markdown report.
 * @returns 0 when every case passed, 1 when any failed, 2 when the evaluation could not run (invalid
 *   cases, no server). Never throws.
 */
export async function runEvalCommand(dir: string, options: { json: boolean; out?: string }): Promise<number> {
  let target: Awaited<ReturnType<typeof resolveTemporal>> | undefined;
  let connection: Connection | undefined;
  let native: NativeConnection | undefined;
  try {
    installStderrRuntime();
    target = await resolveTemporal({ log: (l) => console.error(l) });
    connection = await Connection.connect(target.connectionOptions);
    native = await NativeConnection.connect(target.connectionOptions);
    // With HARNESS_CODEC_KEYS_FILE (or HARNESS_CODEC_KEYS) the client and the cases' workers encrypt.
    const client = createHarnessClient({ connection, namespace: target.namespace });
    const bundlePath = process.env.HARNESS_WORKFLOW_BUNDLE;
    const workflowBundle = bundlePath
      ? { codePath: bundlePath }
      : await bundleWorkflows({
          workflowsPath: fileURLToPath(new URL('../workflow/workflows.ts', import.meta.url)),
        });
    const result = await runEval({
      dir,
      ...(options.out ? { out: options.out } : {}),
      temporal: { client, connection: native, namespace: target.namespace },
      workflowBundle,
      concurrency: Number(process.env.HARNESS_EVAL_CONCURRENCY ?? 3),
      ...(process.env.HARNESS_EVAL_POLICY ? { policyOverride: process.env.HARNESS_EVAL_POLICY } : {}),
      ...(process.env.HARNESS_EVAL_BUNDLES ? { bundles: process.env.HARNESS_EVAL_BUNDLES } : {}),
      log: (l) => console.error(l),
    });
    if (options.json) console.log(JSON.stringify(result.report, null, 1));
    else console.log(renderMarkdown(result.report));
    console.error(`reports: ${result.jsonPath} ${result.markdownPath}`);
    return result.report.cases.every((c) => c.passed) ? 0 : 1;
  } catch (err) {
    const code = err instanceof HarnessError ? `${err.code}: ` : '';
    console.error(`eval failed: ${code}${err instanceof Error ? err.message : String(err)}`);
    return 2;
  } finally {
    await connection?.close().catch(() => undefined);
    await native?.close().catch(() => undefined);
    await target?.stop().catch(() => undefined);
  }
}
