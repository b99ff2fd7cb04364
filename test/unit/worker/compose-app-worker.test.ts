import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchNoopDefinition, benchNoopExecutor } from '../../../apps/bench/bench-noop-tool.js';
import { isHarnessError } from '../../../src/contract/errors.js';
import { ModelRouter } from '../../../src/activities/model-router.js';
import { ScriptedProvider } from '../../../src/activities/model/scripted-provider.js';
import { parseModelScript } from '../../../src/activities/model/scripted-script.js';
import { ToolRegistry } from '../../../src/registry/tool-registry.js';
import { composeAppWorker } from '../../../src/worker/compose-app-worker.js';

function parts(env: NodeJS.ProcessEnv, storeUrl: string) {
  const registry = new ToolRegistry();
  registry.register(benchNoopDefinition, benchNoopExecutor);
  const models = new ModelRouter();
  models.register(
    'scripted/app',
    new ScriptedProvider(
      parseModelScript({ entries: [{ match: { step: 0 }, response: { text: 'hi' } }] }, 'scripted/app'),
    ),
    'scripted',
  );
  const closed: string[] = [];
  return {
    closed,
    parts: {
      registry,
      models,
      fallbackRoute: 'scripted/app',
      options: { storeUrl, env },
      onClose: () => {
        closed.push('app');
        return Promise.resolve();
      },
    },
  };
}

const store = (): string => `sqlite:${join(mkdtempSync(join(tmpdir(), 'app-worker-')), 'evidence.db')}`;

describe('composeAppWorker', () => {
  it('uses the fallback route without a provider, and closes the app parts with the composition', async () => {
    const { parts: p, closed } = parts({}, store());
    const worker = await composeAppWorker(p);
    expect(worker.defaultModelRoute).toBe('scripted/app');
    expect(worker.models.routeNames()).toEqual(['scripted/app']);
    await worker.close();
    expect(closed).toEqual(['app']);
  });

  it('adds HARNESS_MODEL_PROVIDER as route env and makes it the default', async () => {
    const env = {
      HARNESS_MODEL_PROVIDER: 'openai',
      HARNESS_MODEL: 'gpt-test',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    };
    const { parts: p } = parts(env, store());
    const worker = await composeAppWorker(p);
    expect(worker.defaultModelRoute).toBe('env');
    expect(worker.models.routeNames().sort()).toEqual(['env', 'scripted/app']);
    await worker.close();
  });

  it('closes the app parts when the provider configuration or the store is bad', async () => {
    const bad = parts({ HARNESS_MODEL_PROVIDER: 'openai' }, store());
    const code = await composeAppWorker(bad.parts).then(
      () => 'composed',
      (e: unknown) => (isHarnessError(e) ? e.code : String(e)),
    );
    expect(code).toBe('model.config_invalid');
    expect(bad.closed).toEqual(['app']);
    const badStore = parts({}, 'mysql://nowhere');
    await expect(composeAppWorker(badStore.parts)).rejects.toThrow();
    expect(badStore.closed).toEqual(['app']);
  });

  it("passes the app's declared erasable fields to the store, and closes the app parts when they are invalid", async () => {
    const { parts: p } = parts({}, store());
    const worker = await composeAppWorker({ ...p, erasable: { keys: ['zip'] } });
    expect(worker.erasable?.declared).toEqual({ keys: ['zip'] });
    await worker.close();
    const bad = parts({}, store());
    const code = await composeAppWorker({ ...bad.parts, erasable: { keys: ['tenantId'] } }).then(
      () => 'composed',
      (e: unknown) => (isHarnessError(e) ? e.code : String(e)),
    );
    expect(code).toBe('erasable.invalid');
    expect(bad.closed).toEqual(['app']);
  });
});
