import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarnessFixture, type HarnessFixture } from './harness.js';
import type { FakeServer } from '../unit/activities/model/support/fake-http-server.js';

/**
 * What the model-routes workflow tests share (test/workflows/model-routes.test.ts, fast-model.test.ts):
 * a routes file (docs/models.md, "Model routes file") written into a fresh temporary directory, and a
 * harness whose worker reads it from `HARNESS_MODEL_ROUTES`, with the keys its routes name.
 */

/** How {@link createRoutesFixture} writes its routes file and sets up its worker. */
export interface RoutesFixtureOptions {
  /** Prefix of the temporary directory's name. */
  readonly dirPrefix: string;
  /**
   * Writes the routes file (and what it names: scripts) into `dir`, returns its path; see
   * {@link writeRoutesJson}.
   */
  readonly write: (dir: string) => string;
  /** The worker's other variables: the keys the routes' `apiKeyEnv` name. */
  readonly env?: Record<string, string>;
}

/**
 * A harness fixture on `name` whose worker takes its model routes from the file `o.write` wrote.
 * @throws the file system's errors; the fixture's (a routes file the worker refuses, the server).
 */
export async function createRoutesFixture(name: string, o: RoutesFixtureOptions): Promise<HarnessFixture> {
  const dir = mkdtempSync(join(tmpdir(), o.dirPrefix));
  const file = o.write(dir);
  return await createHarnessFixture(name, { env: { HARNESS_MODEL_ROUTES: file, ...o.env } });
}

/**
 * Writes `routes` (a routes file's content) as `dir/routes.json`, and each of `files` beside it as
 * JSON (the scripts its scripted routes name); returns the routes file's path.
 */
export function writeRoutesJson(dir: string, routes: unknown, files: Record<string, unknown> = {}): string {
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), JSON.stringify(content));
  const file = join(dir, 'routes.json');
  writeFileSync(file, JSON.stringify(routes));
  return file;
}

/**
 * An OpenAI-compatible route on the fake provider `server` (model `gpt-fake-1`, a 128,000-token window,
 * $2 / $8 per million tokens), its key in the variable `apiKeyEnv`, with `extra` on top (retry, fast,
 * fallbacks).
 */
export function fakeOpenAiRoute(
  server: FakeServer,
  apiKeyEnv: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    provider: 'openai',
    model: 'gpt-fake-1',
    baseUrl: `${server.origin}/v1`,
    apiKeyEnv,
    contextWindow: 128_000,
    prices: { inputUsdPerMTok: 2, outputUsdPerMTok: 8 },
    ...extra,
  };
}
