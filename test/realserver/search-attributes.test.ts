import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RefundComposition } from '../../apps/refund/composition.js';
import { isHarnessError } from '../../src/contract/errors.js';
import { HARNESS_SEARCH_ATTRIBUTES } from '../../src/devserver/search-attributes.js';
import { createHarnessWorker } from '../../src/worker/harness-worker.js';
import { startWorker, uniqueTaskQueue } from '../support/temporal.js';
import { startAnswerRun, tierComposition } from './composition.js';
import {
  connectTier,
  realServer,
  registerNamespace,
  temporalCli,
  tier,
  type TierConnections,
} from './tier.js';

/**
 * Issue 37 (a): a fresh namespace on the real server (mTLS) has none of the five search attributes.
 * A worker with `searchAttributes: 'check'` refuses to start, naming them and the exact commands; the
 * commands, run as printed with the `temporal` CLI over mTLS, create them and the run succeeds. On
 * another fresh namespace the default `'register'` creates them through the operator service.
 */
describe.skipIf(!realServer())('real server: search attributes on a fresh namespace', () => {
  const TAG = Date.now().toString(36);
  let t: TierConnections;
  let composition: RefundComposition;
  const stops: (() => Promise<void>)[] = [];
  const closes: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    // the operator who provisions namespaces (temporal-system:admin when the server checks API keys)
    t = await connectTier('namespace-operator', undefined, tier(), 'system');
    composition = await tierComposition('worker-sa');
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    for (const close of closes) await close();
    await composition?.close();
    await t?.close();
  });

  /** A worker with its own connection: `write` on the namespace to check, `admin` to register. */
  async function workerOn(namespace: string, mode: 'check' | 'register', taskQueue: string) {
    const own = await connectTier(
      `worker-${mode}`,
      namespace,
      tier(),
      mode === 'register' ? 'admin' : 'write',
    );
    closes.push(() => own.close());
    const worker = await createHarnessWorker({
      connection: own.nativeConnection,
      namespace,
      taskQueue,
      composition,
      workflowBundle: { codePath: tier().bundlePath },
      searchAttributes: mode,
    });
    stops.push(startWorker(worker));
  }

  async function runsOn(namespace: string, taskQueue: string): Promise<void> {
    const own = await connectTier('search-attributes-client', namespace);
    closes.push(() => own.close());
    const client = own.client;
    const handle = await startAnswerRun(client, taskQueue, `sa-${namespace}`);
    expect(((await handle.result()) as { status: string }).status).toBe('succeeded');
    const described = await handle.describe();
    expect(described.searchAttributes.AgentStatus).toEqual(['succeeded']);
  }

  it("'check' names the missing attributes and the commands; after running them the run succeeds", async () => {
    const namespace = `fresh-check-${TAG}`;
    await registerNamespace(t.connection, namespace);
    const taskQueue = uniqueTaskQueue('sa-check');
    const err = await workerOn(namespace, 'check', taskQueue).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isHarnessError(err, 'temporal.search_attributes_missing'), String(err)).toBe(true);
    const message = (err as Error).message;
    const commands = message
      .split('\n')
      .filter((l) => l.startsWith('temporal operator search-attribute create'));
    expect(commands).toEqual(
      HARNESS_SEARCH_ATTRIBUTES.map(
        (a) =>
          `temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${a.type}`,
      ),
    );
    for (const a of HARNESS_SEARCH_ATTRIBUTES) expect(message).toContain(a.name);
    // What the operator does: run the printed commands (with the cluster's connection flags).
    for (const command of commands) await temporalCli(command.split(' ').slice(1));
    await workerOn(namespace, 'check', taskQueue);
    await runsOn(namespace, taskQueue);
  });

  it("'register' creates them through the operator service over mTLS and the run succeeds", async () => {
    const namespace = `fresh-register-${TAG}`;
    await registerNamespace(t.connection, namespace);
    const listed = await t.connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(listed.customAttributes ?? {}).filter((n) => n.startsWith('Agent'))).toEqual([]);
    const taskQueue = uniqueTaskQueue('sa-register');
    await workerOn(namespace, 'register', taskQueue);
    await runsOn(namespace, taskQueue);
  });
});
