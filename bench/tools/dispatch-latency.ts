/**
 * Where a step's time goes on the dev server, without the harness: `npx tsx bench/tools/dispatch-latency.ts`
 * starts a private dev server from temporal-dev.yml (plus `HARNESS_PROBE_DYNAMIC_CONFIG`, a JSON
 * object of dynamic config values, to try another setting), runs 15 workflows of 10 activities
 * one after another (the first 3 warm up), and prints the medians, in ms, of: activity and workflow
 * task scheduled -> started (dispatch), started -> completed (run), and the wall time of a workflow.
 * It also reads the SDK's own latency histograms (Core's Prometheus exporter, on loopback), as means
 * over the measured runs: how much of a task's run time the worker spends on it (`workflow task
 * execution`: from receiving the task to completing it; `activity execution`: the activity
 * function), the rest being the server round trips and persistence.
 * BENCHMARKS.md, "The absolute step time", has its results.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { loadDevServerConfig } from '../../src/devserver/config.js';
import { startDevServer } from '../../src/devserver/dev-server.js';
import { freePortPair } from '../lib/server.js';

const EventType = proto.temporal.api.enums.v1.EventType;
const RUNS = 15;
const WARM_UP = 3;
const STEPS = 10;

type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
const millis = (t: Timestamp): number => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The SDK histograms read, by Prometheus name (milliseconds). */
const SDK_HISTOGRAMS = [
  'temporal_workflow_task_schedule_to_start_latency',
  'temporal_workflow_task_execution_latency',
  'temporal_activity_schedule_to_start_latency',
  'temporal_activity_execution_latency',
] as const;

/** Sum and count of each histogram in `SDK_HISTOGRAMS`, over every label set. */
async function scrape(url: string): Promise<Record<string, { sum: number; count: number }>> {
  const text = await (await fetch(url)).text();
  const out: Record<string, { sum: number; count: number }> = {};
  for (const name of SDK_HISTOGRAMS) out[name] = { sum: 0, count: 0 };
  for (const line of text.split('\n')) {
    const m = /^(\w+)_(sum|count)(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    const h = m ? out[m[1]!] : undefined;
    if (m && h) h[m[2] as 'sum' | 'count'] += Number(m[3]);
  }
  return out;
}

async function main(): Promise<void> {
  const extra = JSON.parse(process.env.HARNESS_PROBE_DYNAMIC_CONFIG ?? '{}') as Record<
    string,
    string | number | boolean
  >;
  const base = loadDevServerConfig();
  const dir = mkdtempSync(join(tmpdir(), 'harness-dispatch-'));
  const port = await freePortPair(base.server.ip);
  const server = await startDevServer(
    {
      ...base,
      server: { ...base.server, port, uiPort: port + 1, dbFile: join(dir, 'server.db'), logLevel: 'error' },
      dynamicConfig: { ...base.dynamicConfig, ...extra },
    },
    () => undefined,
  );
  // The SDK runtime (and its metrics port) starts after the server holds its ports.
  const metricsPort = await freePortPair('127.0.0.1');
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}` } } },
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  try {
    const worker = await Worker.create({
      connection,
      namespace: server.namespace,
      taskQueue: 'dispatch-latency',
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: new URL('../workflows/dispatch-steps-workflow.ts', import.meta.url).pathname,
      }),
      activities: { noop: (k: number) => Promise.resolve(k + 1) },
    });
    const client = new Client({ connection: clientConnection, namespace: server.namespace });
    const phases = {
      activityDispatch: [] as number[],
      activityRun: [] as number[],
      taskDispatch: [] as number[],
      taskRun: [] as number[],
    };
    const walls: number[] = [];
    let before: Awaited<ReturnType<typeof scrape>> = {};
    let after: Awaited<ReturnType<typeof scrape>> = {};
    await worker.runUntil(async () => {
      for (let i = 0; i < RUNS; i++) {
        if (i === WARM_UP) before = await scrape(metricsUrl);
        const started = Date.now();
        const handle = await client.workflow.start('dispatchSteps', {
          taskQueue: 'dispatch-latency',
          workflowId: `dispatch-${i}`,
          args: [STEPS],
        });
        await handle.result();
        if (i < WARM_UP) continue;
        walls.push(Date.now() - started);
        const events = (await handle.fetchHistory()).events ?? [];
        const at = new Map(events.map((e) => [Number(e.eventId), millis(e.eventTime)]));
        const since = (e: (typeof events)[number], id: unknown) =>
          millis(e.eventTime) - (at.get(Number(id)) ?? Number.NaN);
        for (const e of events) {
          if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
            phases.activityDispatch.push(since(e, e.activityTaskStartedEventAttributes?.scheduledEventId));
          if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
            phases.activityRun.push(since(e, e.activityTaskCompletedEventAttributes?.startedEventId));
          if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)
            phases.taskDispatch.push(since(e, e.workflowTaskStartedEventAttributes?.scheduledEventId));
          if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
            phases.taskRun.push(since(e, e.workflowTaskCompletedEventAttributes?.startedEventId));
        }
      }
      after = await scrape(metricsUrl);
    });
    const sdkMeanMs = Object.fromEntries(
      SDK_HISTOGRAMS.map((name) => {
        const count = (after[name]?.count ?? 0) - (before[name]?.count ?? 0);
        const sum = (after[name]?.sum ?? 0) - (before[name]?.sum ?? 0);
        return [name.replace(/^temporal_/, ''), count > 0 ? Number((sum / count).toFixed(2)) : null];
      }),
    );
    const medians = Object.fromEntries(
      Object.entries(phases).map(([k, v]) => [k, Number(median(v).toFixed(1))]),
    );
    process.stdout.write(
      `${JSON.stringify({ dynamicConfig: extra, medianMs: medians, sdkMeanMs, workflowOf10StepsMs: median(walls) })}\n`,
    );
  } finally {
    await clientConnection.close();
    await connection.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
