import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { showcaseDefinition } from '../../apps/showcase/workflow/definition.js';
import { registerBenchTools } from '../../apps/bench/bench-noop-tool.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { isHarnessError } from '../../src/contract/errors.js';
import { AgentStatusKey } from '../../src/contract/visibility.js';
import { checkSearchAttributes, HARNESS_SEARCH_ATTRIBUTES } from '../../src/devserver/search-attributes.js';
import { createRunService, type RunServiceOptions } from '../../src/service/run-service.js';
import { composeAgentRun } from '../../src/workflows/temporal/agent-run-definition.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import { startBareTemporal, type BareTemporal } from '../support/bare-temporal.js';
import { refundRunInput } from '../support/harness.js';
import { TEST_KEYS, TEST_PRINCIPALS, testStartSigner } from '../support/principals.js';
import { createTokenIssuer, testServiceConfig, type TokenIssuer } from '../support/run-service.js';
import { startWorker, uniqueTaskQueue } from '../support/temporal.js';
import { runCli } from './cli-support.js';

/**
 * A plain Temporal server (started here without the dev wrapper's `--search-attribute` flags, so the
 * namespace has none of the harness's attributes): workers and the run service check them at start,
 * say exactly what is missing and how to create it, or register them through the operator service.
 */
const NAMES = HARNESS_SEARCH_ATTRIBUTES.map((a) => a.name);

describe('a Temporal server without the harness search attributes', { timeout: 180_000 }, () => {
  let server: BareTemporal;
  let connection: Connection;
  let native: NativeConnection;
  let client: Client;
  let issuer: TokenIssuer;
  const dir = mkdtempSync(join(tmpdir(), 'harness-search-attributes-'));
  const services: FastifyInstance[] = [];

  const composition = () =>
    createShowcaseComposition({
      storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
      refundStorePath: join(dir, 'refund.db'),
      env: {},
      principals: TEST_PRINCIPALS,
      extend: [(registry) => registerBenchTools(registry)],
    });
  const service = (o: Partial<RunServiceOptions>, store = {} as RunServiceOptions['store']) => {
    const app = createRunService({
      client,
      store,
      composition: composeAgentRun(showcaseDefinition),
      taskQueue: 'unused',
      config: testServiceConfig(),
      jwks: issuer.jwks,
      delegateKey: TEST_KEYS.service,
      ...o,
    });
    services.push(app);
    return app;
  };

  beforeAll(async () => {
    server = await startBareTemporal();
    connection = await Connection.connect({ address: server.address });
    native = await NativeConnection.connect({ address: server.address });
    client = new Client({ connection, namespace: server.namespace });
    issuer = await createTokenIssuer();
  });
  afterAll(async () => {
    for (const s of services) await s.close();
    await connection?.close();
    await native?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('with registration off, a worker fails at start naming all five and the create commands', async () => {
    const c = await composition();
    try {
      const err = await createHarnessWorker({
        connection: native,
        namespace: server.namespace,
        taskQueue: uniqueTaskQueue('sa-check'),
        composition: c,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        searchAttributes: 'check',
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isHarnessError(err, 'temporal.search_attributes_missing')).toBe(true);
      const message = (err as Error).message;
      for (const name of NAMES)
        expect(message).toContain(
          `temporal operator search-attribute create --namespace default --name ${name} --type Keyword`,
        );
      expect((err as { details: { missing: string[] } }).details.missing).toEqual(NAMES);
      // Nothing was registered.
      expect((await checkSearchAttributes(connection, server.namespace)).missing).toHaveLength(5);
    } finally {
      await c.close();
    }
  });

  it('`harness worker`: HARNESS_SEARCH_ATTRIBUTES=check stops it naming them; a bad mode is a usage error', async () => {
    const env = {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      HARNESS_TASK_QUEUE: uniqueTaskQueue('sa-cli'),
      HARNESS_STORE_URL: `sqlite:${join(dir, 'cli-evidence.db')}`,
      HARNESS_REFUND_DB: join(dir, 'cli-refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    };
    const checked = await runCli(['worker'], { ...env, HARNESS_SEARCH_ATTRIBUTES: 'check' });
    expect(checked.code).toBe(1);
    expect(checked.stdout).not.toContain('polling');
    for (const name of NAMES) expect(checked.stderr).toContain(`--name ${name} --type Keyword`);
    const bad = await runCli(['worker', '--search-attributes', 'sometimes'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--search-attributes: 'sometimes' is not one of register, check, skip");
    const badEnv = await runCli(['worker'], { ...env, HARNESS_SEARCH_ATTRIBUTES: 'maybe' });
    expect(badEnv.code).not.toBe(0);
    expect(badEnv.stderr).toContain("HARNESS_SEARCH_ATTRIBUTES: 'maybe' is not one of register, check, skip");
    // Nothing was registered by any of them.
    expect((await checkSearchAttributes(connection, server.namespace)).missing).toHaveLength(5);
  });

  it('startAgentRun says why it was refused: the attribute the server named, a create command for each', async () => {
    const input = refundRunInput({ task: { message: 'refund ORD-1001 please', customerId: 'C1001' } });
    const signer = testStartSigner(input);
    const err = await startAgentRun(client, {
      taskQueue: uniqueTaskQueue('sa-start'),
      workflowId: `sa-start-${Date.now()}`,
      input,
      ...(signer ? { signer } : {}),
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(isHarnessError(err, 'temporal.search_attributes_missing')).toBe(true);
    expect(err?.message).toMatch(/^namespace default has no search attribute Agent\w+ /);
    const commands = err!.message.split('\n').filter((l) => l.startsWith('temporal operator'));
    expect(commands).toEqual(
      NAMES.map(
        (n) => `temporal operator search-attribute create --namespace default --name ${n} --type Keyword`,
      ),
    );
  });

  it("the run service's /readyz says not ready naming them; a check-only service does not start", async () => {
    const checking = service({ searchAttributes: 'check' });
    await expect(checking.listen({ host: '127.0.0.1', port: 0 })).rejects.toMatchObject({
      code: 'temporal.search_attributes_missing',
      message: expect.stringContaining('--name AgentUser --type Keyword') as unknown,
    });
    const store = { listRuns: () => Promise.resolve([]) } as unknown as RunServiceOptions['store'];
    const app = service({ searchAttributes: 'skip', log: { level: 'silent' } }, store);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as {
      ready: boolean;
      message: string;
      checks: Record<string, { ok: boolean; missing?: string[]; message?: string }>;
    };
    expect(body.ready).toBe(false);
    expect(body.checks.temporal?.ok).toBe(true);
    expect(body.checks.store?.ok).toBe(true);
    expect(body.checks.searchAttributes?.missing).toEqual(NAMES);
    expect(body.message).toContain(
      'temporal operator search-attribute create --namespace default --name AgentStatus --type Keyword',
    );
  });

  it('a failing start is logged with its cause under the request id the caller gets', async () => {
    const lines: string[] = [];
    const app = service({ searchAttributes: 'skip', log: { stream: { write: (l) => lines.push(l) } } });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const token = await issuer.token({
      sub: 'C1001',
      tenant: 'acme',
      roles: ['requester'],
      kind: 'customer',
    });
    const res = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        profile: 'refund.graph',
        task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
        modelRoute: 'scripted/refund',
      }),
    });
    expect(res.status).toBeGreaterThanOrEqual(500);
    const body = (await res.json()) as { error: { code: string; requestId: string } };
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.error.requestId).toBe(requestId);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const entry = logged.find((l) => l.requestId === requestId);
    expect(entry).toMatchObject({ statusCode: res.status, method: 'POST', url: '/v1/runs' });
    // The cause (the server's own words about the missing attribute: the admission count filters by
    // AgentTenant) is in the line, with its cause's message.
    expect((entry as { err?: { message?: string } }).err?.message).toMatch(
      /AgentTenant.*not a valid search attribute/,
    );
  });

  it('a worker registers them; a run then starts and sets its status attribute; /readyz is ready', async () => {
    const c = await composition();
    const taskQueue = uniqueTaskQueue('sa-register');
    const stop = startWorker(
      await createHarnessWorker({
        connection: native,
        namespace: server.namespace,
        taskQueue,
        composition: c,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      }),
    );
    try {
      expect(await checkSearchAttributes(connection, server.namespace)).toEqual({
        missing: [],
        conflicts: [],
      });
      const input = refundRunInput({ task: { message: 'refund ORD-1001 please', customerId: 'C1001' } });
      const signer = testStartSigner(input);
      const handle = await startAgentRun(client, {
        taskQueue,
        workflowId: `sa-register-${Date.now()}`,
        input,
        ...(signer ? { signer } : {}),
      });
      let status: string | undefined;
      for (let i = 0; i < 100 && status === undefined; i += 1) {
        status = (await handle.describe()).typedSearchAttributes.get(AgentStatusKey);
        if (status === undefined) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBeTypeOf('string');
      await handle.terminate('test done');
      const store = { listRuns: () => Promise.resolve([]) } as unknown as RunServiceOptions['store'];
      const app = service({ log: { level: 'silent' } }, store);
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      expect(await (await fetch(`${url}/readyz`)).json()).toMatchObject({
        ready: true,
        checks: { searchAttributes: { ok: true } },
      });
    } finally {
      await stop();
      await c.close();
    }
  });
});
