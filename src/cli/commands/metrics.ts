import { payloadCodecFromEnv } from '../../codec/codec-from-env.js';
import type { HarnessApp } from '../../worker/app.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { installWorkerRuntime } from '../../worker/runtime.js';
import { failureReplayer } from '../../client/failures/reproduce-failure.js';
import { collectRunEvidence, type FailureReplayer } from '../../client/metrics/collect-run-evidence.js';
import { buildMetricsReport, renderMetricsMarkdown } from '../../client/metrics/metrics-report.js';
import { connectTemporal, openCliStore, type CliTemporal } from '../connect.js';
import { EXIT, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { parsePositiveInt } from '../read-json.js';
import { parseSince } from '../time-arg.js';

export interface MetricsOptions {
  readonly since: string;
  readonly until?: string;
  readonly tenant?: string;
  readonly limit: string;
  /** commander's `--no-history`. */
  readonly history: boolean;
  readonly replay?: boolean;
}

/** Most runs one report measures. */
export const MAX_METRICS_RUNS = 5000;

/**
 * `harness metrics [--since 24h] [--until t] [--tenant id] [--limit n] [--no-history] [--replay]`:
 * every seed 004 metric over the runs created in the window (docs/metrics.md), from the evidence
 * store, the runs' Temporal histories (queue wait, interruptions, attempts; `--no-history` skips the
 * server) and, with `--replay`, a replay of each failure sample against this build. Markdown, or the
 * JSON report with `--json`. A metric without a source here says why. The app (`--app`) is loaded
 * only to bundle its workflows for `--replay` without HARNESS_WORKFLOW_BUNDLE.
 * @throws CliError exit 2 for bad options, exit 4 when the server is unreachable (without
 *   `--no-history`); the store's errors.
 */
export async function metricsCommand(
  loadApp: () => Promise<HarnessApp>,
  o: MetricsOptions,
  out: Output,
): Promise<number> {
  const limit = parsePositiveInt('--limit', o.limit);
  if (limit > MAX_METRICS_RUNS) throw usageError(`--limit is at most ${MAX_METRICS_RUNS} (got ${limit})`);
  const now = Date.now();
  const from = parseSince(o.since, now);
  const to = o.until === undefined ? new Date(now).toISOString() : parseSince(o.until, now, '--until');
  if (Date.parse(to) <= Date.parse(from))
    throw usageError(`--until (${to}) must be after --since (${from})`, { since: from, until: to });
  if (o.replay && !o.history) throw usageError('--replay needs the histories: drop --no-history');
  const store = await openCliStore();
  let temporal: CliTemporal | undefined;
  try {
    const records = await store.listRuns({
      createdFrom: from,
      createdBefore: to,
      ...(o.tenant ? { tenantId: o.tenant } : {}),
      limit: limit + 1,
    });
    const truncated = records.length > limit;
    const runIds = records.slice(0, limit).map((r) => r.runId);
    if (o.history) temporal = await connectTemporal();
    let replay: FailureReplayer | undefined;
    if (o.replay) {
      installWorkerRuntime();
      const bundlePath = process.env.HARNESS_WORKFLOW_BUNDLE;
      if (!bundlePath) out.progress('bundling the workflow code…');
      const workflowBundle = bundlePath
        ? { codePath: bundlePath }
        : await bundleWorkflows({ workflowsPath: (await loadApp()).workflowsPath });
      replay = failureReplayer(workflowBundle, payloadCodecFromEnv());
    }
    out.progress(`measuring ${runIds.length} run(s) created from ${from} to ${to}…`);
    const evidence = await collectRunEvidence(runIds, {
      store,
      ...(temporal ? { temporal: temporal.client } : {}),
      ...(replay ? { replay } : {}),
      onRun: (done, total) => {
        if (done % 100 === 0 && done < total) out.progress(`${done}/${total} runs read`);
      },
    });
    const report = buildMetricsReport({
      evidence,
      window: { from, to },
      ...(o.tenant ? { tenant: o.tenant } : {}),
      truncated,
      context: {
        ...(o.history ? {} : { historyUnavailable: 'skipped with --no-history' }),
        ...(o.replay ? {} : { replayUnavailable: 'failure samples are replayed only with --replay' }),
      },
    });
    out.data(report);
    out.line(renderMetricsMarkdown(report));
    return EXIT.ok;
  } finally {
    await temporal?.close();
    await store.close();
  }
}
