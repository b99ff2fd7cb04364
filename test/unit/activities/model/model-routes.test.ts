import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelRoutePlanSchema } from '../../../../src/contract/model-routes.js';
import { nextFallback, routeForPurpose } from '../../../../src/workflows/runner/model-routing.js';
import { ModelRouter } from '../../../../src/activities/model-router.js';
import { composeWorker } from '../../../../src/worker/compose-worker.js';
import { loadModelRoutes } from '../../../../src/activities/model/model-routes.js';
import { modelErrorOf as errorOf, routesFolder } from '../../../support/routes-file.js';

const { dir, fileWith } = routesFolder('routes-unit-');

const ENV = { OPENAI_KEY: 'sk-unit-openai-000000', ANTHROPIC_KEY: 'sk-ant-unit-000000' };

const VALID = {
  schemaVersion: 1,
  routes: {
    'support@v1': {
      provider: 'openai',
      model: 'gpt-4.1-mini',
      apiKeyEnv: 'OPENAI_KEY',
      contextWindow: 128_000,
      prices: { inputUsdPerMTok: 0.4, outputUsdPerMTok: 1.6 },
      fallbacks: [
        { route: 'claude@v1', on: ['outage', 'rate_limited'] },
        { route: 'claude@v2', on: ['refusal', 'outage'] },
      ],
    },
    'claude@v1': {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKeyEnv: 'ANTHROPIC_KEY',
      contextWindow: 200_000,
      prices: { inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
      fallbacks: [{ route: 'support@v1', on: ['outage'] }],
    },
    'claude@v2': {
      provider: 'anthropic',
      model: 'claude-opus-4',
      apiKeyEnv: 'ANTHROPIC_KEY',
      contextWindow: 200_000,
      prices: { inputUsdPerMTok: 15, outputUsdPerMTok: 75 },
    },
  },
  purposes: { default: 'support@v1', route: 'claude@v1' },
};

function withChange(change: (v: typeof VALID & Record<string, unknown>) => void): string {
  const v = structuredClone(VALID) as typeof VALID & Record<string, unknown>;
  change(v);
  return JSON.stringify(v);
}

describe('model routes file', () => {
  it('loads JSON and YAML alike; a worker serves several providers; the plan pins purposes and fallbacks', () => {
    const json = loadModelRoutes(fileWith(JSON.stringify(VALID)), ENV);
    const yaml = loadModelRoutes(
      fileWith(
        [
          'schemaVersion: 1',
          'routes:',
          ...Object.entries(VALID.routes).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
          'purposes: { default: support@v1, route: claude@v1 }',
        ].join('\n'),
        'yaml',
      ),
      ENV,
    );
    expect(yaml.digest).toBe(json.digest);
    expect(json.all().map((r) => r.provider.name)).toEqual(['openai', 'anthropic', 'anthropic']);
    const plan = json.plan()!;
    expect(ModelRoutePlanSchema.safeParse(plan).success).toBe(true);
    expect(plan.purposes).toEqual({ default: 'support@v1', route: 'claude@v1' });
    expect(Object.keys(plan.routes).sort()).toEqual(['claude@v1', 'claude@v2', 'support@v1']);
    expect(plan.routes['support@v1']).toMatchObject({ provider: 'openai', maxAttempts: 6, callSeconds: 600 });
    expect(routeForPurpose(plan, 'route')).toBe('claude@v1');
    expect(routeForPurpose(plan, 'decide')).toBe('support@v1');
    // A starter's route: that version for every purpose.
    expect(json.plan('claude@v2')).toMatchObject({ purposes: { default: 'claude@v2' } });
    expect(json.plan('scripted/refund')).toBeUndefined();
    // No key in what runs pin.
    expect(JSON.stringify(plan)).not.toContain(ENV.OPENAI_KEY);
  });

  it.each([
    ['not JSON', '{ "schemaVersion": 1,', /not valid JSON/],
    [
      'a missing field',
      withChange((v) => delete (v.routes as Record<string, unknown>)['claude@v2']),
      /claude@v2/,
    ],
    [
      'an unversioned key',
      withChange((v) => ((v.routes as Record<string, unknown>).support = VALID.routes['support@v1'])),
      /routes\.support: expected a versioned route name/,
    ],
    [
      'a bad price',
      withChange(
        (v) => ((v.routes['support@v1'].prices as { inputUsdPerMTok: number }).inputUsdPerMTok = -1),
      ),
      /routes\.support@v1\.prices\.inputUsdPerMTok/,
    ],
    [
      'an unknown trigger',
      withChange((v) => (v.routes['support@v1'].fallbacks[0]!.on = ['sometimes'])),
      /routes\.support@v1\.fallbacks\.0\.on\.0/,
    ],
    [
      'a fallback to itself',
      withChange((v) => (v.routes['support@v1'].fallbacks[0]!.route = 'support@v1')),
      /fallbacks\.0\.route: a route cannot fall back to itself/,
    ],
    [
      'a purpose naming no route',
      withChange((v) => (v.purposes.route = 'nope@v1')),
      /purposes\.route: no route nope@v1/,
    ],
    [
      'no key variable for a real provider',
      withChange((v) => delete (v.routes['claude@v2'] as { apiKeyEnv?: string }).apiKeyEnv),
      /routes\.claude@v2\.apiKeyEnv: required for provider anthropic/,
    ],
    [
      'an unknown key (a typo)',
      withChange((v) => ((v.routes['claude@v2'] as Record<string, unknown>).fallback = [])),
      /routes\.claude@v2: .*fallback/,
    ],
  ])('refuses %s with model.routes_invalid naming the field', (_name, text, message) => {
    const path = fileWith(text);
    const err = errorOf(() => loadModelRoutes(path, ENV));
    expect(err.code).toBe('model.routes_invalid');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(path);
    expect(err.message).toMatch(message);
  });

  it('refuses a route whose key variable is not set, naming the variable and never a key', () => {
    const err = errorOf(() =>
      loadModelRoutes(fileWith(JSON.stringify(VALID)), { OPENAI_KEY: ENV.OPENAI_KEY }),
    );
    expect(err.code).toBe('model.routes_invalid');
    expect(err.message).toContain('ANTHROPIC_KEY (apiKeyEnv) is not set');
    expect(err.message).not.toContain(ENV.OPENAI_KEY);
  });

  it('refuses a file that cannot be read or is not YAML', () => {
    expect(errorOf(() => loadModelRoutes(join(dir, 'missing.json'), ENV)).message).toContain('cannot read');
    expect(errorOf(() => loadModelRoutes(fileWith('routes: [unclosed', 'yml'), ENV)).message).toContain(
      'not valid YAML',
    );
  });

  it('a worker with a corrupt routes file does not start (HARNESS_MODEL_ROUTES)', async () => {
    const path = fileWith('{ "schemaVersion": 2 }');
    await expect(
      composeWorker({
        tools: [],
        models: new ModelRouter(),
        store: `sqlite:${join(dir, 'evidence.db')}`,
        env: { HARNESS_MODEL_ROUTES: path },
      }),
    ).rejects.toThrow(/schemaVersion/);
    const err = await composeWorker({
      tools: [],
      models: new ModelRouter(),
      store: `sqlite:${join(dir, 'evidence.db')}`,
      env: { HARNESS_MODEL_ROUTES: path },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'model.routes_invalid' });
  });

  it('a worker resolves exactly the pinned version and refuses one whose content changed', () => {
    const router = new ModelRouter().useRoutes(loadModelRoutes(fileWith(JSON.stringify(VALID)), ENV));
    const pinned = router.plan()!.routes['support@v1']!.digest;
    expect(router.resolve('support@v1', pinned).provider.name).toBe('openai');
    const edited = new ModelRouter().useRoutes(
      loadModelRoutes(fileWith(withChange((v) => (v.routes['support@v1'].model = 'gpt-5'))), ENV),
    );
    expect(() => edited.resolve('support@v1', pinned)).toThrow(
      expect.objectContaining({ code: 'model.route_changed' }),
    );
    // Where and how a worker reaches the model is not part of the version.
    const moved = new ModelRouter().useRoutes(
      loadModelRoutes(
        fileWith(
          withChange(
            (v) => ((v.routes['support@v1'] as Record<string, unknown>).baseUrl = 'http://127.0.0.1:9/v1'),
          ),
        ),
        ENV,
      ),
    );
    expect(moved.resolve('support@v1', pinned).provider.name).toBe('openai');
  });
});

describe('fallback choice (workflow side)', () => {
  const plan = loadModelRoutes(fileWith(JSON.stringify(VALID)), ENV).plan()!;

  it("follows the primary's ordered list, by trigger, each route at most once", () => {
    expect(nextFallback(plan, 'support@v1', 0, 'model.provider_unavailable')).toEqual({
      route: 'claude@v1',
      position: 1,
      trigger: 'outage',
    });
    // claude@v1 failed too: the next entry of the primary's list with `outage`, not claude@v1's own list.
    expect(nextFallback(plan, 'support@v1', 1, 'model.connection_lost')).toEqual({
      route: 'claude@v2',
      position: 2,
      trigger: 'outage',
    });
    expect(nextFallback(plan, 'support@v1', 2, 'model.timeout')).toBeUndefined();
    expect(nextFallback(plan, 'support@v1', 0, 'model.rate_limited')?.route).toBe('claude@v1');
    expect(nextFallback(plan, 'support@v1', 0, 'model.blocked')?.route).toBe('claude@v2');
    // Failures another route cannot help with never fall back.
    expect(nextFallback(plan, 'support@v1', 0, 'model.unauthorized')).toBeUndefined();
    expect(nextFallback(plan, 'support@v1', 0, 'model.output_invalid')).toBeUndefined();
    expect(nextFallback(plan, 'support@v1', 0, undefined)).toBeUndefined();
  });
});
