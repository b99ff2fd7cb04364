import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { decide } from '../support/decisions.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarnessClient } from '../../src/client/harness-client.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { TEST_KEYS } from '../support/principals.js';
import { projectRoot } from '../../src/devserver/config.js';
import type { SpanRecord } from '../../src/telemetry/jsonl-exporter.js';
import { otelTraceIdForRun, rootSpanIdForRun } from '../../src/contract/run-trace.js';
import { createTracing, tracingFromEnv } from '../../src/telemetry/tracing.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import { loadHistoryFixtures } from '../../src/worker/history-fixtures.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createFaultRig, resultOf, waitForPause } from '../faults/fault-rig.js';
import {
  createHarnessFixture,
  historyEventTypes,
  refundRunInput,
  type HarnessFixture,
} from '../support/harness.js';
import { connectTestTemporal, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { testWorkflowsPath } from '../support/workflows-path.js';
import { testRunId } from '../support/run-id.js';

const REFUND = { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' };

/** Run the refund example to the end: confirmation pause, approve signal, refunded. */
async function refundToTheEnd(handle: WorkflowHandle): Promise<void> {
  // a settled pause (no open activity), so the signal lands at the same point of every run's history
  const waiting = await waitForPause(handle, 'awaiting_confirmation');
  await decide(handle, 'approve', {}, waiting);
  const result = (await handle.result()) as { status: string; output: { outcome: string } };
  expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
}

/** History event types without the workflow-task bookkeeping (whose count depends on timing). */
async function commandEvents(handle: WorkflowHandle): Promise<string[]> {
  return (await historyEventTypes(handle)).filter((t) => !t.startsWith('EVENT_TYPE_WORKFLOW_TASK_'));
}

function readSpans(file: string): SpanRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SpanRecord);
}

describe('OpenTelemetry tracing (one trace per run)', { timeout: 240_000 }, () => {
  let tracedBundle: WorkflowBundleWithSourceMap;
  let tracedBundlePath: string;
  const dir = mkdtempSync(join(tmpdir(), 'harness-tracing-'));

  let t: TestTemporal;

  beforeAll(async () => {
    t = await connectTestTemporal(); // also installs the quiet runtime the replay below logs through
    tracedBundle = await bundleWorkflows({ workflowsPath: testWorkflowsPath, tracing: true });
    tracedBundlePath = join(dir, 'traced-workflow-bundle.js');
    writeFileSync(tracedBundlePath, tracedBundle.code);
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    await t?.close();
  });

  it('the traced bundle replays every committed history and exports nothing while replaying', async () => {
    const memory = new InMemorySpanExporter();
    const tracing = createTracing(memory, 'replay');
    const fixtures = loadHistoryFixtures(join(projectRoot, 'test', 'fixtures', 'histories'));
    expect(fixtures.length).toBeGreaterThan(0);
    for (const f of fixtures) {
      await Worker.runReplayHistory(
        { workflowBundle: tracedBundle, replayName: f.workflowId, sinks: tracing.sinks() },
        f.history,
        f.workflowId,
      );
    }
    expect(memory.getFinishedSpans()).toEqual([]);
  });

  describe('in one process', () => {
    let untraced: HarnessFixture;
    const memory = new InMemorySpanExporter();
    let traced: HarnessFixture;

    beforeAll(async () => {
      untraced = await createHarnessFixture('tracing-off');
      traced = await createHarnessFixture(
        'tracing-on',
        {},
        { workflowBundle: tracedBundle, tracing: createTracing(memory, 'agent-harness-worker') },
      );
    });
    afterAll(async () => {
      await traced?.close();
      await untraced?.close();
    });

    it('a refund run is one trace: client, workflow, signal, model and tool spans share the run trace id', async () => {
      const client = createHarnessClient({
        connection: t.connection,
        namespace: t.namespace,
        tracing: createTracing(memory, 'agent-harness-client'),
      });
      const workflowId = testRunId('tracing-on');
      const input = refundRunInput({ task: REFUND });
      const handle = await startAgentRun(client, {
        taskQueue: traced.taskQueue,
        workflowId,
        input,
        // Signed by the customer (C1001): an anonymous refund run is refused.
        signer: { key: TEST_KEYS.customer },
      });
      await refundToTheEnd(handle);
      await expect
        .poll(() => memory.getFinishedSpans().map((s) => s.name), { timeout: 15_000 })
        .toContain('RunWorkflow:agentRun');
      const spans: ReadableSpan[] = memory.getFinishedSpans();
      const names = new Set(spans.map((s) => s.name));
      for (const name of [
        'StartWorkflow:agentRun',
        'RunWorkflow:agentRun',
        'SignalWorkflow:approve',
        'HandleSignal:approve',
        'StartActivity:callModelV3',
        'RunActivity:callModelV3',
        'StartActivity:runToolV3',
        'RunActivity:runToolV3',
      ])
        expect(names, name).toContain(name);
      expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(
        new Set([otelTraceIdForRun(workflowId)]),
      );
      // the client's start span hangs under the run's virtual root; the workflow span under the start span
      const start = spans.find((s) => s.name === 'StartWorkflow:agentRun')!;
      expect(start.parentSpanId).toBe(rootSpanIdForRun(workflowId));
      const run = spans.find((s) => s.name === 'RunWorkflow:agentRun')!;
      expect(run.parentSpanId).toBe(start.spanContext().spanId);
      const toolRuns = spans.filter((s) => s.name === 'RunActivity:runToolV3');
      expect(toolRuns.length).toBeGreaterThanOrEqual(4);
      const activityStarts = new Set(
        spans.filter((s) => s.name.startsWith('StartActivity:')).map((s) => s.spanContext().spanId),
      );
      for (const s of toolRuns) expect(activityStarts).toContain(s.parentSpanId);
      // queries are polled and not traced
      expect([...names].some((n) => n.includes('Query'))).toBe(false);
      // the run's events carry its OpenTelemetry trace id (agent-run-event-envelope-v1)
      const traceIds = async (h: HarnessFixture, runId: string) =>
        new Set(
          (await h.composition.store.listEvents(runId)).map(
            (e) => (e.envelope as { traceId: string }).traceId,
          ),
        );
      expect(await traceIds(traced, workflowId)).toEqual(new Set([otelTraceIdForRun(workflowId)]));

      // with tracing off the same run exports nothing and has the same commands in its history
      memory.reset();
      expect(tracingFromEnv('agent-harness-worker', {})).toBeUndefined();
      const plain = await untraced.start({ task: REFUND });
      await refundToTheEnd(plain);
      expect(memory.getFinishedSpans()).toEqual([]);
      expect(await commandEvents(plain)).toEqual(await commandEvents(handle));
      // untraced: the trace id of its events is the run id
      expect(await traceIds(untraced, plain.workflowId)).toEqual(new Set([plain.workflowId]));
      expect((await handle.query<RunView>('state')).status).toBe('succeeded');
    });

    it('a traced worker refuses an untraced bundle', async () => {
      await expect(
        createHarnessWorker({
          connection: t.nativeConnection,
          namespace: t.namespace,
          taskQueue: uniqueTaskQueue('tracing-mismatch'),
          composition: untraced.composition,
          workflowBundle: { codePath: inject('workflowBundlePath') },
          tracing: createTracing(new InMemorySpanExporter(), 'mismatch'),
        }),
      ).rejects.toMatchObject({ code: 'worker.bundle_tracing_mismatch' });
    });
  });

  it('a worker killed mid-run: the next worker process continues the same trace', async () => {
    const rig = await createFaultRig('tracing-restart');
    try {
      const spansDir = join(dir, 'spans');
      mkdirSync(spansDir, { recursive: true });
      const tracedWorker = (n: number) =>
        rig.worker({
          bundlePath: tracedBundlePath,
          env: { HARNESS_OTEL: 'jsonl', HARNESS_OTEL_FILE: join(spansDir, `worker-${n}.jsonl`) },
        });
      const first = await tracedWorker(1);
      // started by an untraced client: the workflow derives the run's trace itself
      const handle = await rig.start({ task: REFUND });
      const waiting = await waitForPause(handle, 'awaiting_confirmation');
      await first.kill();

      const second = await tracedWorker(2);
      await decide(handle, 'approve', {}, waiting);
      expect((await resultOf(handle)).output.outcome).toBe('refunded');
      await expect
        .poll(() => readSpans(join(spansDir, 'worker-2.jsonl')).map((s) => s.name), { timeout: 15_000 })
        .toContain('RunWorkflow:agentRun');
      await second.kill();

      const before = readSpans(join(spansDir, 'worker-1.jsonl'));
      const after = readSpans(join(spansDir, 'worker-2.jsonl'));
      const traceId = otelTraceIdForRun(handle.workflowId);
      expect(new Set([...before, ...after].map((s) => s.traceId))).toEqual(new Set([traceId]));
      expect(before.map((s) => s.name)).toEqual(
        expect.arrayContaining(['RunActivity:callModelV3', 'RunActivity:runToolV3']),
      );
      expect(after.map((s) => s.name)).toEqual(
        expect.arrayContaining(['RunWorkflow:agentRun', 'HandleSignal:approve', 'RunActivity:runToolV3']),
      );
      expect(after.find((s) => s.name === 'RunWorkflow:agentRun')?.parentSpanId).toBe(
        rootSpanIdForRun(handle.workflowId),
      );
      expect(after[0]?.resource['service.name']).toBe('agent-harness-worker');
    } finally {
      await rig.close();
    }
  });
});
