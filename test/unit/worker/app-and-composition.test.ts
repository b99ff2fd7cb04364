import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchNoopDefinition, benchNoopExecutor } from '../../../apps/bench/bench-noop-tool.js';
import { isHarnessError } from '../../../src/contract/errors.js';
import { loadHarnessApp } from '../../../src/worker/app.js';
import { composeWorker } from '../../../src/worker/compose-worker.js';
import { ScriptedProvider } from '../../../src/activities/model/scripted-provider.js';
import { parseModelScript } from '../../../src/activities/model/scripted-script.js';

const provider = new ScriptedProvider(
  parseModelScript({ entries: [{ match: { step: 0 }, response: { text: 'hi' } }] }, 'scripted/x'),
);

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (isHarnessError(e) ? e.code : String(e)),
  );
}

describe('loadHarnessApp', () => {
  it('loads the module named by the spec, HARNESS_APP or package.json agentHarness.app', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-app-'));
    const showcase = join(process.cwd(), 'apps', 'showcase', 'app.ts');
    expect((await loadHarnessApp(showcase)).name).toBe('showcase');
    expect((await loadHarnessApp(undefined, { HARNESS_APP: showcase }, dir)).name).toBe('showcase');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ agentHarness: { app: showcase } }));
    expect((await loadHarnessApp(undefined, {}, dir)).name).toBe('showcase');
  });

  it('says what is missing: no app named, or a module that is not an app', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'harness-noapp-'));
    writeFileSync(join(empty, 'package.json'), JSON.stringify({ name: 'x' }));
    // the search stops at the filesystem root; a temp folder has no package.json with the field above it
    expect(await codeOf(loadHarnessApp(undefined, {}, empty))).toBe('app.not_configured');
    const notApp = join(empty, 'not-app.mjs');
    writeFileSync(notApp, 'export const app = { name: "x" };\n');
    expect(await codeOf(loadHarnessApp(notApp, {}, empty))).toBe('app.invalid');
  });
});

describe('composeWorker', () => {
  it('registers tools, maps routes, picks the only route as default and pins a config digest', async () => {
    const c = await composeWorker({
      tools: [{ definition: benchNoopDefinition, executor: benchNoopExecutor }],
      models: { 'scripted/x': { provider, model: 'scripted' } },
      store: 'sqlite::memory:',
    });
    expect(c.registry.list().map((d) => d.name)).toEqual(['bench.noop']);
    expect(c.defaultModelRoute).toBe('scripted/x');
    expect(c.configDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    await c.close();
  });

  it('refuses an unknown or ambiguous default route, and a bad tool, before opening anything', async () => {
    const two = { 'a/x': { provider, model: 'm' }, 'b/x': { provider, model: 'm' } };
    expect(await codeOf(composeWorker({ tools: [], models: two, store: 'sqlite::memory:' }))).toBe(
      'worker.no_model_route',
    );
    expect(
      await codeOf(
        composeWorker({ tools: [], models: two, store: 'sqlite::memory:', defaultModelRoute: 'c/x' }),
      ),
    ).toBe('worker.no_model_route');
    const bad = { ...benchNoopDefinition, name: 'Not A Name' };
    expect(
      await codeOf(
        composeWorker({
          tools: [{ definition: bad, executor: benchNoopExecutor }],
          models: two,
          store: 'sqlite::memory:',
        }),
      ),
    ).toBe('registry.invalid_name');
  });

  it('pins declared erasable fields in the config digests, and refuses an invalid declaration at load', async () => {
    const models = { 'scripted/x': { provider, model: 'scripted' } };
    const plain = await composeWorker({ tools: [], models, store: 'sqlite::memory:' });
    const declared = await composeWorker({
      tools: [],
      models,
      store: 'sqlite::memory:',
      erasable: { keys: ['zip', 'paymentMethodId'] },
    });
    expect(declared.erasable?.declared).toEqual({ keys: ['paymentmethodid', 'zip'] });
    expect(declared.configDigest).not.toBe(plain.configDigest);
    expect(plain.erasable).toBeUndefined();
    await plain.close();
    await declared.close();
    for (const erasable of [
      { keys: ['tenantId'] },
      { keys: ['not a key'] },
      { paths: { 'tool.requested': ['arguments/zip'] } },
      { paths: { 'tool.requested': ['/arguments/actor'] } },
      { keys: ['zip'], extra: true },
    ])
      expect(await codeOf(composeWorker({ tools: [], models, store: 'sqlite::memory:', erasable }))).toBe(
        'erasable.invalid',
      );
  });
});
