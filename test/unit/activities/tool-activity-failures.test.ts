import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../../../src/contract/errors.js';
import { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from '../../../src/contract/failure-types.js';
import type { ToolExecution, ToolExecutor } from '../../../src/contract/tool.js';
import type { ToolCallActivityInput } from '../../../src/contract/activity-interfaces.js';
import { NO_EVENTS } from '../../../src/contract/packed-events.js';
import { createToolActivities } from '../../../src/activities/tool-activities.js';
import { MAX_TOOL_RESULT_OUTPUT_CHARS } from '../../../src/activities/tool-results.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { StoreError, openEvidenceStore, type EvidenceStore } from '../../../src/activities/store/index.js';
import { newRunId } from './store/fixtures.js';

const PARAMETERS = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
  additionalProperties: false,
} as const;

/** Which store calls fail (StoreError store.unavailable), as a database outage would. */
type FailingCall = 'recordIntentWithEvents' | 'recordResult';

/**
 * The tool activity against a real SQLite evidence store whose chosen calls fail: which failures are
 * `tool.not_started` (provably before the effect), which are `tool.outcome_unknown`.
 */
describe('tool activity: which failures are which', () => {
  let dir: string;
  let store: EvidenceStore;
  const failing = new Set<FailingCall>();
  let executions = 0;
  let behaviour: () => ToolExecution = () => ({ output: { ok: true } });
  const executor: ToolExecutor = {
    execute: () => {
      executions += 1;
      return Promise.resolve(behaviour());
    },
  };
  let activities: ReturnType<typeof createToolActivities>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tool-activity-failures-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
    const outage = new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (failing.has(prop as FailingCall))
            return Promise.reject(
              new StoreError('store.unavailable', 'PostgreSQL is unavailable: connect ECONNREFUSED'),
            );
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const registry = new ToolRegistry();
    registry.register(
      { name: 'demo.write', version: 'v1', description: 'A write.', parameters: PARAMETERS, effect: 'write' },
      executor,
    );
    registry.register(
      { name: 'demo.read', version: 'v1', description: 'A read.', parameters: PARAMETERS, effect: 'read' },
      executor,
    );
    activities = createToolActivities({ registry, store: outage, identity: 'test' });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function call(
    tool: 'demo.write' | 'demo.read',
    over: Partial<ToolCallActivityInput> = {},
  ): ToolCallActivityInput {
    const runId = newRunId();
    return {
      runId,
      seq: 1,
      tool,
      version: 'v1',
      effect: tool === 'demo.write' ? 'write' : 'read',
      args: { n: 1 },
      argsDigest: 'sha256:1',
      idempotencyKey: `${runId}/1`,
      events: NO_EVENTS,
      ...over,
    };
  }

  async function run(input: ToolCallActivityInput, fail: FailingCall[] = []): Promise<unknown> {
    failing.clear();
    for (const f of fail) failing.add(f);
    try {
      return await new MockActivityEnvironment().run(
        (i: ToolCallActivityInput) => activities.runTool(i),
        input,
      );
    } catch (err) {
      return err;
    } finally {
      failing.clear();
      behaviour = () => ({ output: { ok: true } });
    }
  }

  const failureType = (err: unknown) => (err instanceof ApplicationFailure ? err.type : err);

  it('a write whose intent cannot be recorded did not start: the executor never ran', async () => {
    const before = executions;
    const err = await run(call('demo.write'), ['recordIntentWithEvents']);
    expect(failureType(err)).toBe(TOOL_NOT_STARTED);
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
    expect(executions).toBe(before);
  });

  it('a write whose result cannot be recorded after the executor ran is outcome_unknown, never failed', async () => {
    const input = call('demo.write');
    const before = executions;
    const err = await run(input, ['recordResult']);
    expect(executions).toBe(before + 1);
    expect(failureType(err)).toBe(TOOL_OUTCOME_UNKNOWN);
    expect((err as ApplicationFailure).message).toContain('could not record its result');
    const record = await store.getInvocation(input.runId, 1);
    expect(record?.intents).toHaveLength(1);
    expect(record?.result).toBeUndefined();
  });

  it("a write whose executor's business failure cannot be recorded is outcome_unknown too", async () => {
    behaviour = () => {
      throw new HarnessError('demo.refused', 'not allowed');
    };
    expect(failureType(await run(call('demo.write'), ['recordResult']))).toBe(TOOL_OUTCOME_UNKNOWN);
  });

  it('a write whose executor returns an artifact the store refuses is outcome_unknown', async () => {
    behaviour = () => ({
      output: { ok: true },
      artifacts: [
        {
          id: 'x',
          type: 'thing',
          schemaVersion: 'v1',
          provenance: 'observed',
          data: { big: 'y'.repeat(40_000) },
        },
      ],
    });
    expect(failureType(await run(call('demo.write')))).toBe(TOOL_OUTCOME_UNKNOWN);
  });

  it('a read whose result cannot be recorded fails retryably (its activity retries it)', async () => {
    const err = await run(call('demo.read'), ['recordResult']);
    expect(err).toBeInstanceOf(StoreError);
  });

  it("a run's new attempt runs the executor again after an attempt settled not applied, under the same key", async () => {
    const input = call('demo.write');
    await store.recordIntent({
      runId: input.runId,
      seq: 1,
      attempt: 1,
      tool: input.tool,
      version: input.version,
      effect: input.effect,
      argsDigest: input.argsDigest,
      args: { ...input.args },
      idempotencyKey: input.idempotencyKey,
      workerIdentity: 'w',
      recordedAt: new Date().toISOString(),
    });
    await store.recordResolution({
      runId: input.runId,
      seq: 1,
      attempt: 1,
      status: 'not_applied',
      artifactIds: [],
      recordedAt: new Date().toISOString(),
      source: 'reconciler',
      evidence: { check: 'reconcile' },
    });
    const before = executions;
    const got = await run({ ...input, attempt: 2 });
    expect(got).toMatchObject({ status: 'succeeded' });
    expect(executions).toBe(before + 1);
    const record = await store.getInvocation(input.runId, 1);
    expect(record?.results.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'not_applied'],
      [2, 'succeeded'],
    ]);
    // A lost completion of attempt 2 finds attempt 2's result; the executor does not run again.
    expect(await run({ ...input, attempt: 2 })).toMatchObject({ status: 'succeeded' });
    expect(executions).toBe(before + 1);
    // Attempt 3 never recorded an intent: settling it says not applied, whatever attempt 1 and 2 did.
    expect(
      await new MockActivityEnvironment().run(
        (i: ToolCallActivityInput) => activities.resolveLostInvocation(i),
        { ...input, attempt: 3 },
      ),
    ).toEqual({ kind: 'no_intent' });
  });

  it('an output over the bound reaches the workflow truncated; the evidence store keeps it whole', async () => {
    behaviour = () => ({ output: { text: 'z'.repeat(MAX_TOOL_RESULT_OUTPUT_CHARS) } });
    const input = call('demo.read');
    const got = (await run(input)) as { output: Record<string, unknown> };
    expect(got.output).toMatchObject({ truncated: true, chars: MAX_TOOL_RESULT_OUTPUT_CHARS + 11 });
    expect(String(got.output.preview)).toHaveLength(8_000);
    const stored = await store.getInvocation(input.runId, 1);
    expect((stored?.result?.output as { text: string }).text).toHaveLength(MAX_TOOL_RESULT_OUTPUT_CHARS);
  });
});
