import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { benchNoopDefinition, benchNoopExecutor } from '../../../apps/bench/bench-noop-tool.js';
import { NO_PRINCIPALS } from '../../../src/activities/authz/principal-registry.js';
import { ModelRouter } from '../../../src/activities/model-router.js';
import { runConfigDigest } from '../../../src/activities/run-config-digest.js';
import { createRunActivities } from '../../../src/activities/run-activities.js';
import type { EvidenceStore } from '../../../src/activities/store/index.js';
import { parseModelScript, ScriptedProvider } from '../../../src/worker/index.js';
import { CONFIG_CHANGED } from '../../../src/contract/failure-types.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { rolloutExecutor, rolloutExtraDefinition } from '../../support/rollout-tools.js';

const ROUTE = 'scripted/test';
const SCRIPT = parseModelScript({ entries: [{ response: { text: 'ok' } }] }, ROUTE);

/** A worker's sources: bench.noop (or its changed definition), more tools, `ROUTE` under `model`. */
function sources(o: { model?: string; changed?: boolean; extra?: boolean; window?: number } = {}) {
  const registry = new ToolRegistry();
  registry.register(
    o.changed
      ? { ...benchNoopDefinition, description: 'Changed without a new version.' }
      : benchNoopDefinition,
    benchNoopExecutor,
  );
  if (o.extra) registry.register(rolloutExtraDefinition, rolloutExecutor);
  const models = new ModelRouter().register(
    ROUTE,
    new ScriptedProvider(SCRIPT),
    o.model ?? 'scripted',
    o.window !== undefined ? { contextWindow: o.window } : {},
  );
  return { registry, models };
}

const SCOPE = { modelRoute: ROUTE };

describe('the run config digest covers exactly what the run uses', () => {
  it('is the same on a worker with more or other tools (the tool pins cover them), and differs for another route definition or window', () => {
    const base = runConfigDigest(sources(), SCOPE);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(runConfigDigest(sources({ extra: true }), SCOPE)).toBe(base);
    expect(runConfigDigest(sources({ changed: true }), SCOPE)).toBe(base);
    expect(runConfigDigest(sources({ model: 'other' }), SCOPE)).not.toBe(base);
    expect(runConfigDigest(sources({ window: 1000 }), SCOPE)).not.toBe(base);
    // What the worker lacks counts as missing: another digest, never an error.
    expect(runConfigDigest(sources(), { ...SCOPE, modelRoute: 'scripted/none' })).not.toBe(base);
  });

  it('loadToolSnapshot pins it at the first start and refuses a start on a worker without the route', async () => {
    const activities = (s: ReturnType<typeof sources>) =>
      createRunActivities({
        ...s,
        store: {} as EvidenceStore,
        defaultModelRoute: ROUTE,
        configDigest: `sha256:${'c'.repeat(64)}`,
        principals: NO_PRINCIPALS,
      });
    const snap = await activities(sources()).loadToolSnapshot({ names: ['bench.noop'], runConfig: true });
    expect(snap.runConfig).toEqual({ ...SCOPE, digest: runConfigDigest(sources(), SCOPE) });
    // Not asked: not pinned (runs without the config pin).
    expect(
      (await activities(sources()).loadToolSnapshot({ names: ['bench.noop'] })).runConfig,
    ).toBeUndefined();
    const refused = await activities(sources())
      .loadToolSnapshot({ names: ['bench.noop'], runConfig: true, modelRoute: 'scripted/none' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: CONFIG_CHANGED, nonRetryable: true });
  });
});
