import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_EVENTS } from '../../../src/contract/packed-events.js';
import type { ModelCallActivityInput } from '../../../src/contract/activity-interfaces.js';
import type { ModelDecision } from '../../../src/contract/step-io.js';
import { CONFIG_CHANGED } from '../../../src/contract/failure-types.js';
import type { RunConfigPin } from '../../../src/contract/run-config.js';
import { createModelActivities } from '../../../src/activities/model-activities.js';
import { ModelRouter } from '../../../src/activities/model-router.js';
import { runConfigDigest } from '../../../src/activities/run-config-digest.js';
import { openEvidenceStore, type EvidenceStore } from '../../../src/activities/store/index.js';
import { parseModelScript, ScriptedProvider } from '../../../src/worker/index.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { newRunId } from './store/fixtures.js';

const ROUTE = 'scripted/pin';

/**
 * The model activity under a run's config pin (`configPin`, agent-run-config-pin-v1): a worker with
 * another configuration, or one that cannot serve the call's summarize route, refuses the call
 * non-retryably before it stores anything or asks any provider.
 */
describe('the model activity refuses what it cannot serve as the run pinned it', () => {
  let dir: string;
  let store: EvidenceStore;
  const registry = new ToolRegistry();
  const models = new ModelRouter().register(
    ROUTE,
    new ScriptedProvider(parseModelScript({ entries: [{ response: { text: 'ok' } }] }, ROUTE)),
    'scripted',
  );
  const activities = () => createModelActivities({ registry, store, models });
  const scope = { modelRoute: ROUTE };
  const pin: RunConfigPin = { ...scope, digest: runConfigDigest({ models }, scope) };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'model-config-pin-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (runId: string, extra: Partial<ModelCallActivityInput>): ModelCallActivityInput => ({
    runId,
    callSeq: 1,
    purpose: 'decide',
    modelRoute: ROUTE,
    newMessages: [{ role: 'user', content: 'hello', trust: 'untrusted' }],
    toolKeys: [],
    events: NO_EVENTS,
    workerRefusal: true,
    ...extra,
  });
  const run = (input: ModelCallActivityInput): Promise<ModelDecision> =>
    new MockActivityEnvironment().run((i: ModelCallActivityInput) => activities().callModel(i), input);
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );

  it('answers under the pin it has', async () => {
    const runId = newRunId('pin');
    expect((await run(call(runId, { configPin: pin }))).text).toBe('ok');
  });

  it('refuses, non-retryable worker.config_changed, another configuration: nothing stored', async () => {
    const runId = newRunId('pin');
    const err = await failureOf(
      run(call(runId, { configPin: { ...pin, digest: `sha256:${'0'.repeat(64)}` } })),
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: CONFIG_CHANGED, nonRetryable: true });
    expect(await store.listMessageGroups(runId)).toEqual([]);
  });

  it('refuses a call whose summarize route this worker cannot serve, up front; without a pin it answers', async () => {
    const summarizeRoute = { route: 'scripted/summaries@v1', digest: `sha256:${'1'.repeat(64)}` };
    const runId = newRunId('pin');
    const err = await failureOf(run(call(runId, { configPin: pin, summarizeRoute })));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'model.unknown_route', nonRetryable: true });
    expect(await store.listMessageGroups(runId)).toEqual([]);
    // Runs without the config pin: a summary that cannot be made is left out when one is needed.
    expect((await run(call(newRunId('pin'), { summarizeRoute }))).text).toBe('ok');
  });
});
