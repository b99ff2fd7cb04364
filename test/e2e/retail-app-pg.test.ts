import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RetailPgStore } from '../../apps/retail/db/pg/retail-pg-store.js';
import { startAgentRun } from '../../src/index.js';
import { approvePending } from '../support/decisions.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { TEST_PRINCIPALS } from '../support/principals.js';
import { waitForExit, waitForOutput } from '../support/processes.js';
import { connectTestTemporal, uniqueTaskQueue, type TestTemporal } from '../support/temporal.js';
import { spawnCli } from './cli-support.js';

const RETAIL_APP = fileURLToPath(new URL('../../apps/retail/app.ts', import.meta.url));
/** Task 88 of tasks-train.json: one cancel of this pending order, "ordered by mistake". */
const ORDER = '#W8835847';

/**
 * The retail app as a user runs it: `harness worker --app apps/retail/app.ts` as its own process, its
 * tools over PostgreSQL (`RETAIL_DB_URL`), a `retail.agent@v2` run on the gold route of task 88, the
 * write approved, and the order cancelled exactly once in PostgreSQL.
 */
describe(
  'the retail app on PostgreSQL (harness worker --app apps/retail/app.ts)',
  { timeout: 240_000 },
  () => {
    let pg: TestPostgres;
    let url: string;
    let t: TestTemporal;
    beforeAll(async () => {
      pg = await startTestPostgres();
      url = pg.freshUrl();
      t = await connectTestTemporal();
    }, 180_000);
    afterAll(async () => {
      await t?.close();
      await pg?.stop();
    }, 60_000);

    it('loads db.json into an empty PostgreSQL database, runs the gold route, and cancels the order once', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-retail-app-'));
      const principals = join(dir, 'principals.json');
      writeFileSync(principals, JSON.stringify(TEST_PRINCIPALS));
      const taskQueue = uniqueTaskQueue('retail-app-pg');
      const worker = spawnCli(['worker'], {
        HARNESS_APP: RETAIL_APP,
        HARNESS_TASK_QUEUE: taskQueue,
        HARNESS_STORE_URL: `sqlite:${join(dir, 'evidence.db')}`,
        HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
        HARNESS_PRINCIPALS: principals,
        RETAIL_DB_URL: url,
      });
      try {
        await waitForOutput(worker, /polling/, 120_000);
        const handle = await startAgentRun(t.client, {
          taskQueue,
          workflowId: `retail-app-pg-${Date.now()}`,
          input: {
            schemaVersion: 1,
            profile: { name: 'retail.agent', version: 'v2' },
            modelRoute: 'gold/88',
            task: { message: 'I ordered by mistake; please cancel my pending order.' },
          },
        });
        await approvePending(handle, { timeoutMs: 90_000 });
        const result = await handle.result();
        expect(result.status, JSON.stringify(result).slice(0, 600)).toBe('succeeded');
        const store = await RetailPgStore.open(url);
        try {
          const order = (await store.export()).orders[ORDER]!;
          expect(order.status).toBe('cancelled');
          expect(order.payment_history.filter((p) => p.transaction_type === 'refund')).toHaveLength(1);
        } finally {
          await store.close();
        }
      } finally {
        worker.kill('SIGINT');
        await waitForExit(worker);
      }
    });

    it('a worker with a retail database URL of another scheme stops with a clear error', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-retail-app-bad-'));
      const worker = spawnCli(['worker'], {
        HARNESS_APP: RETAIL_APP,
        HARNESS_TASK_QUEUE: uniqueTaskQueue('retail-app-bad'),
        HARNESS_STORE_URL: `sqlite:${join(dir, 'evidence.db')}`,
        HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
        RETAIL_DB_URL: 'mysql://localhost/retail',
      });
      let stderr = '';
      worker.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      expect(await waitForExit(worker)).not.toBe(0);
      expect(stderr).toMatch(/unsupported retail database URL scheme/);
    });
  },
);
