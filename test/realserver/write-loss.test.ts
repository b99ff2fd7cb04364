import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createFaultRig, resultOf, type FaultRig } from '../faults/fault-rig.js';
import { decide } from '../support/decisions.js';
import { waitForState } from '../support/harness.js';
import { historyOf } from '../support/history.js';
import { withSchema } from '../support/postgres.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { freshSchema } from './composition.js';
import { createHosts, type TestHost, type TestHosts } from './hosts.js';
import { realServer, tier, tierEnv } from './tier.js';

/** refund.create is the 4th invocation of the refund graph (order.read, logistics.read, policy.search.refund). */
const CREATE_SEQ = 4;
const SLOW_CREATE = { HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=120000' };

/**
 * Issue 37 (c): on the real server (mTLS, PostgreSQL persistence, 4 shards) with the evidence store on
 * PostgreSQL, a worker is SIGKILLed while `refund.create` runs; a worker on another host (a network
 * namespace of its own with its own hostname and client certificate, where the machine allows it;
 * else another process) settles the write. The customer is paid exactly once.
 */
describe.skipIf(!realServer())('real server: a worker dies during a write', { timeout: 240_000 }, () => {
  // Each case gets its own rig (task queue, evidence store schema, refund store): each refunds ORD-1001 in full once.
  let rig: FaultRig;
  let storeUrl: string;
  const rigs: FaultRig[] = [];
  let hosts: TestHosts | undefined;
  const handles: WorkflowHandle[] = [];

  async function newRig(): Promise<void> {
    storeUrl = withSchema(tier().storeUrl, freshSchema('writeloss'));
    const loaded = loadClientConnectConfig({ overrideEnvVars: tierEnv('write-loss-rig'), disableFile: true });
    rig = await createFaultRig('rs-write-loss', {
      connection: { ...loaded.connectionOptions, address: tier().address },
      namespace: tier().namespace,
      temporalAddress: tier().address,
      storeUrl,
      bundlePath: tier().bundlePath,
    });
    rigs.push(rig);
  }

  beforeAll(async () => {
    hosts = await createHosts(['worker-host-a', 'worker-host-b']);
    console.error(
      hosts
        ? '[realserver] workers on two hosts: network namespaces with their own hostnames, joined by veth pairs'
        : '[realserver] network namespaces unavailable here (not root or no `ip netns`): workers are two plain processes',
    );
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    for (const r of rigs) await r.close();
    await hosts?.remove();
  });

  /** A worker process as `name` (own client certificate), on `host` when there are hosts. */
  async function workerAs(name: string, host: TestHost | undefined, extra: Record<string, string> = {}) {
    const env = tierEnv(name);
    let url = storeUrl;
    if (host) {
      env.TEMPORAL_ADDRESS = await host.reach(tier().address);
      const pg = new URL(storeUrl);
      const reached = (await host.reach(`${pg.hostname}:${pg.port}`)).split(':');
      pg.hostname = reached[0]!;
      pg.port = reached[1]!;
      url = pg.toString();
    }
    return rig.worker({
      env: { ...env, HARNESS_STORE_URL: url, ...extra },
      ...(host ? { wrap: host.wrap } : {}),
    });
  }

  const rowsOf = (handle: WorkflowHandle) =>
    rig.refundRows().filter((r) => r.idempotency_key === `${handle.workflowId}/${CREATE_SEQ}`);

  it.each([
    ['the row was committed, the worker died before completing the activity', 'after_commit', 'reconciler'],
    ['the worker died before the row was written', 'before_commit', 'executor'],
  ])('%s: the other host settles it, one refund', async (_title, phase, settledBy) => {
    await newRig();
    const dying = await workerAs(`worker-a-${phase}`, hosts?.hosts[0], {
      ...SLOW_CREATE,
      ...(phase === 'after_commit' ? { HARNESS_REFUND_STORE_LATENCY_PHASE: 'after_commit' } : {}),
    });
    const handle = await rig.start({
      task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
      activityTimeouts: { writeHeartbeatSeconds: 2 },
    });
    handles.push(handle);
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
    await decide(handle, 'approve', {}, waiting);
    await expect
      .poll(
        async () =>
          (await rig.composition.store.getInvocation(handle.workflowId, CREATE_SEQ))?.intents.length ?? 0,
        { timeout: 30_000 },
      )
      .toBe(1);
    if (phase === 'after_commit') await expect.poll(() => rowsOf(handle).length, { timeout: 30_000 }).toBe(1);
    await dying.kill();
    const healthy = await workerAs(`worker-b-${phase}`, hosts?.hosts[1]);

    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    const rows = rowsOf(handle);
    expect(rows).toHaveLength(1);
    expect(result.output.refundId).toBe(rows[0]!.id);
    const view = await handle.query<RunView>('state');
    expect(view.invocations.filter((i) => i.tool === 'refund.create')).toEqual([
      expect.objectContaining({ seq: CREATE_SEQ, status: 'succeeded' }),
    ]);
    const record = await rig.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.result).toMatchObject({ status: 'succeeded', source: settledBy });
    // Each worker ran tasks of this run, under its own identity (host:pid).
    const history = await historyOf(handle);
    const identities = new Set(history.map((e) => e.identity).filter((i): i is string => !!i));
    const expected = hosts
      ? [`worker-host-a:${dying.pid}`, `worker-host-b:${healthy.pid}`]
      : [`:${dying.pid}`, `:${healthy.pid}`];
    for (const id of expected)
      expect(
        [...identities].some((i) => i.endsWith(id)),
        `${id} in ${[...identities].join(', ')}`,
      ).toBe(true);
    await healthy.kill();
  });
});
