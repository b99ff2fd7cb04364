import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelRoutePlanSchema } from '../../../../src/contract/model-routes.js';
import { ModelRouter } from '../../../../src/activities/model-router.js';
import { runConfigDigest } from '../../../../src/activities/run-config-digest.js';
import { composeWorker } from '../../../../src/worker/compose-worker.js';
import { loadModelRoutes } from '../../../../src/activities/model/model-routes.js';
import { modelErrorOf as errorOf, routesFolder } from '../../../support/routes-file.js';

const { dir, fileWith } = routesFolder('fast-model-route-');
writeFileSync(join(dir, 'script.json'), JSON.stringify({ entries: [], fallback: { text: 'ok' } }));

/** A routes file of one scripted route `quick@v1` with `extra` on top; returns its path. */
function routesWith(extra: Record<string, unknown>): string {
  const route = {
    provider: 'scripted',
    model: 'scripted',
    script: 'script.json',
    contextWindow: 8_000,
    prices: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
    ...extra,
  };
  return fileWith(
    JSON.stringify({ schemaVersion: 1, routes: { 'quick@v1': route }, purposes: { default: 'quick@v1' } }),
  );
}

/** docs/models.md, "Fast model routes": the setting, its bounds, and what a run pins of it. */
describe('fast model routes (routes file)', () => {
  it('a route declaring fast pins it; it is part of the version (digest, config pin); without it nothing changes', () => {
    const fast = loadModelRoutes(routesWith({ fast: { timeoutMs: 1_500 } }), {});
    const plain = loadModelRoutes(routesWith({}), {});
    const fastPlan = fast.plan()!;
    const plainPlan = plain.plan()!;
    expect(fastPlan.routes['quick@v1']!.fast).toEqual({ timeoutMs: 1_500 });
    expect('fast' in plainPlan.routes['quick@v1']!).toBe(false);
    // What a run carries across continue-as-new parses (and an older plan without it too).
    expect(ModelRoutePlanSchema.parse(fastPlan)).toEqual(fastPlan);
    expect(ModelRoutePlanSchema.parse(plainPlan)).toEqual(plainPlan);
    expect(fastPlan.routes['quick@v1']!.digest).not.toBe(plainPlan.routes['quick@v1']!.digest);
    // A worker whose version has another fast setting serves none of the pinned calls.
    const pinned = fastPlan.routes['quick@v1']!.digest;
    expect(() => new ModelRouter().useRoutes(plain).resolve('quick@v1', pinned)).toThrow(
      expect.objectContaining({ code: 'model.route_changed' }),
    );
    const scope = { modelRoute: 'quick@v1' };
    expect(runConfigDigest({ models: new ModelRouter().useRoutes(fast) }, scope)).not.toBe(
      runConfigDigest({ models: new ModelRouter().useRoutes(plain) }, scope),
    );
  });

  it.each([
    [{ timeoutMs: 0 }, 'routes.quick@v1.fast.timeoutMs'],
    [{ timeoutMs: 10_001 }, 'routes.quick@v1.fast.timeoutMs'],
    [{ timeoutMs: 1.5 }, 'routes.quick@v1.fast.timeoutMs'],
    [{ timeoutMs: '500' }, 'routes.quick@v1.fast.timeoutMs'],
    [{}, 'routes.quick@v1.fast.timeoutMs'],
    [{ timeoutMs: 500, retries: 2 }, 'routes.quick@v1.fast'],
    [true, 'routes.quick@v1.fast'],
  ])('refuses fast = %j at load, naming %s', (fast, path) => {
    const err = errorOf(() => loadModelRoutes(routesWith({ fast }), {}));
    expect(err.code).toBe('model.routes_invalid');
    expect(err.message).toContain(`${path}:`);
  });

  it('refuses a fast try longer than one attempt of the route', () => {
    const err = errorOf(() =>
      loadModelRoutes(routesWith({ fast: { timeoutMs: 3_000 }, timeouts: { callSeconds: 2 } }), {}),
    );
    expect(err.code).toBe('model.routes_invalid');
    expect(err.message).toContain('routes.quick@v1.fast.timeoutMs: 3000 ms is longer than one attempt');
  });

  it('a worker with a corrupt fast setting does not start', async () => {
    const err = await composeWorker({
      tools: [],
      models: new ModelRouter(),
      store: `sqlite:${join(dir, 'evidence.db')}`,
      env: { HARNESS_MODEL_ROUTES: routesWith({ fast: { timeoutMs: 60_000 } }) },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'model.routes_invalid' });
    expect((err as Error).message).toContain('routes.quick@v1.fast.timeoutMs');
  });
});
