/**
 * The worker process of the retail evaluation's `fault` variant: `node --import tsx
 * apps/retail/eval/fault-worker.ts <config.json>`. It serves one scenario's run (its database file, its
 * gold route) and, while the kill marker file does not exist, SIGKILLs itself right after the first
 * write's effect committed (creating the marker first), so the write's outcome is lost with its effect
 * applied; the next worker started with the same config serves the run on. Prints `polling` when ready.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { NativeConnection } from '@temporalio/worker';
import { createHarnessWorker } from '../../../src/index.js';
import { createRetailComposition } from '../composition.js';
import { openRetailDbFile } from '../db/retail-db.js';
import { RetailRunDbs } from '../tools/run-db-tools.js';
import { GoldModelProvider, type GoldScript } from './gold-model.js';

/** The config file a fault worker reads. */
export interface FaultWorkerConfig {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly storeUrl: string;
  readonly bundlePath: string;
  /** The principal registry file (public keys). */
  readonly principalsPath: string;
  readonly killMarker: string;
  readonly workflowId: string;
  readonly dbPath: string;
  readonly route: string;
  readonly script: GoldScript;
}

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as FaultWorkerConfig;
const dbs = new RetailRunDbs();
dbs.bind(config.workflowId, openRetailDbFile(config.dbPath));
const composition = await createRetailComposition({
  storeUrl: config.storeUrl,
  dbs,
  models: { [config.route]: new GoldModelProvider(config.script) },
  principals: config.principalsPath,
  env: {},
  drills: {
    afterWrite: (call) => {
      if (existsSync(config.killMarker)) return;
      writeFileSync(config.killMarker, `${call.idempotencyKey}\n`);
      process.kill(process.pid, 'SIGKILL');
    },
  },
});
const connection = await NativeConnection.connect({ address: config.address });
const worker = await createHarnessWorker({
  connection,
  namespace: config.namespace,
  taskQueue: config.taskQueue,
  composition,
  workflowBundle: { codePath: config.bundlePath },
});
const running = worker.run();
console.log('polling');
await running;
await composition.close();
await connection.close();
