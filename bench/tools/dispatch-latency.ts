/**
 * Where a step's time goes on the dev server, without the harness: `npx tsx bench/tools/dispatch-latency.ts`
 * starts a private dev server from temporal-dev.yml (plus `HARNESS_PROBE_DYNAMIC_CONFIG`, a JSON
 * object of dynamic config values, to try another setting), runs 15 workflows of 10 activities
 * one after another (the first 3 warm up), and prints the medians, in ms, of: activity and workflow
 * task scheduled -> started (dispatch), started -> completed (run), and the wall time of a workflow.
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

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
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
    await worker.runUntil(async () => {
      for (let i = 0; i < RUNS; i++) {
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
    });
    const medians = Object.fromEntries(
      Object.entries(phases).map(([k, v]) => [k, Number(median(v).toFixed(1))]),
    );
    process.stdout.write(
      `${JSON.stringify({ dynamicConfig: extra, medianMs: medians, workflowOf10StepsMs: median(walls) })}\n`,
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
