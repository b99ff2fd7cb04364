import { privateDevConfig } from '../support/private-dev-config.js';
import { decide } from '../support/decisions.js';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDevServerConfig, type DevServerConfig } from '../../src/devserver/config.js';
import { startDevServer, type StartedDevServer } from '../../src/devserver/dev-server.js';
import { waitForState } from '../support/harness.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, resultOf, waitForPause, type FaultRig } from './fault-rig.js';

const PORT = 17433;

/** A private copy of temporal-dev.yml on other ports with a throwaway db file (the shared server is untouched). */
function privateConfig(): { config: DevServerConfig; dbFile: string } {
  const { path, dbFile } = privateDevConfig(PORT, 'harness-restart-');
  return { config: loadDevServerConfig(path), dbFile };
}

/**
 * Scenario 7: the dev server restarts on its persisted db file while a run waits for approval; the
 * worker process reconnects by itself and the run finishes after the approve signal.
 */
describe('faults: the dev server restarts', { timeout: 240_000 }, () => {
  const log = (line: string): void => console.error(`[restart] ${line}`);
  let config: DevServerConfig;
  let server: StartedDevServer | undefined;
  let rig: FaultRig;
  let handle: WorkflowHandle | undefined;
  beforeAll(async () => {
    config = privateConfig().config;
    server = await startDevServer(config, log);
    rig = await createFaultRig('restart', { temporalAddress: server.address });
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    await handle?.terminate('test cleanup').catch(() => undefined);
    await rig?.close();
    await server?.stop();
  });

  it('a waiting run survives a server restart on the same db and finishes', async () => {
    const worker = await rig.worker({ temporalAddress: server!.address });
    handle = await rig.start({ task: { message: 'refund ORD-1001', customerId: 'C1001' } });
    const waiting = await waitForPause(handle, 'awaiting_confirmation');

    const firstPid = server!.pid;
    await server!.stop();
    server = await startDevServer(config, log);
    expect(server.pid).not.toBe(firstPid);

    // The run is still there, waiting, served by the same worker process after it reconnected.
    const again = await waitForState(handle, (v) => v.status === 'awaiting_confirmation', 60_000);
    expect(again.pendingAction?.actionId).toBe(waiting.pendingAction!.actionId);
    await decide(handle, 'approve', {}, waiting);
    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    expect(rig.refundRows()).toEqual([
      expect.objectContaining({ order_id: 'ORD-1001', idempotency_key: `${handle.workflowId}/4` }),
    ]);
    expect(worker.output()).toContain('polling');
    await worker.kill();
  });
});
