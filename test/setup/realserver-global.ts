import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../src/devserver/config.js';
import { ensureSearchAttributes } from '../../src/devserver/search-attributes.js';
import { locateServer, serverCacheDir, TEMPORAL_SERVER_VERSION } from '../../src/devserver/server-build.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { mintApiKey, serveJwks } from '../realserver/api-keys.js';
import { makeTierCertificates } from '../realserver/certs.js';
import { startRealServer } from '../realserver/real-server.js';
import { connectTier, registerNamespace, type RealServerContext } from '../realserver/tier.js';
import { startTestPostgres } from '../support/postgres.js';
import { testWorkflowsPath } from '../support/workflows-path.js';

const NAMESPACE = 'harness-realserver';

/**
 * The real-server tier's one server (test/realserver, docs/deploy.md): the Temporal server v1.29.1
 * (built once with go install, cached by version), a throwaway PostgreSQL cluster holding its
 * persistence and visibility databases and the evidence stores, 4 history shards, mTLS on the
 * frontend and API keys (JWTs against a JWKS served here), on free loopback ports. Without Go and without a cached build it prints one line saying
 * the tier is skipped and why, and every test of the tier is skipped.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const log = (line: string): void => console.error(`[realserver] ${line}`);
  const build = await locateServer(TEMPORAL_SERVER_VERSION, log);
  if (!build) {
    log(
      `SKIPPED: no Go toolchain (go not on PATH) and no cached Temporal server v${TEMPORAL_SERVER_VERSION} in ${serverCacheDir()}; install Go to run the real-server tier`,
    );
    project.provide('realServer', null);
    return undefined;
  }
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'harness-realserver-'));
  const postgres = await startTestPostgres({ ignoreExternal: true });
  const cleanups: (() => Promise<void>)[] = [
    () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    () => postgres.stop(),
  ];
  const teardown = async (): Promise<void> => {
    for (const c of cleanups.reverse()) await c().catch((err: unknown) => log(`cleanup: ${String(err)}`));
  };
  try {
    const certs = makeTierCertificates(dir, 'temporal.harness.test');
    const jwks = await serveJwks(dir);
    cleanups.push(() => jwks.close());
    const probe = { ...certs.client('setup'), apiKey: mintApiKey(dir, 'setup', ['temporal-system:admin']) };
    const server = await startRealServer({ build, postgres, certs, log, probe, jwksUrl: jwks.url });
    cleanups.push(() => server.stop());
    const ctx: RealServerContext = {
      address: server.address,
      namespace: NAMESPACE,
      serverName: certs.serverName,
      certDir: dir,
      storeUrl: postgres.url,
      bundlePath: join(projectRoot, '.data', 'test', 'realserver-workflow-bundle.js'),
      metricsUrl: `http://${server.metricsAddress}/metrics`,
    };
    const t = await connectTier('setup', NAMESPACE, ctx, 'admin');
    try {
      await registerNamespace(t.connection, NAMESPACE);
      await ensureSearchAttributes(t.connection, NAMESPACE, { log });
    } finally {
      await t.close();
    }
    const bundle = await bundleWorkflows({ workflowsPath: testWorkflowsPath });
    mkdirSync(join(projectRoot, '.data', 'test'), { recursive: true });
    writeFileSync(ctx.bundlePath, bundle.code);
    log(`ready in ${Date.now() - started} ms: ${server.address}, namespace ${NAMESPACE}`);
    project.provide('realServer', ctx);
    return teardown;
  } catch (err) {
    await teardown();
    throw err;
  }
}
