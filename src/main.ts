/**
 * The main job (`npm start`): start or reuse the Temporal dev server, run a worker, and run the
 * sample. With `--exit` it stops everything when the sample is done (CI uses it); by default the server
 * and worker stay up so the run can be inspected in the Web UI.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import * as plumbing from './activities/plumbing.js';
import { resolveTemporal } from './devserver/temporal-target.js';
import { bundleWorkflows } from './worker/bundle.js';
import { installWorkerRuntime } from './worker/runtime.js';

const exitWhenDone = process.argv.includes('--exit');
const log = (line: string): void => console.log(line);

installWorkerRuntime();
const target = await resolveTemporal({ log });
log(`Temporal: ${target.mode} server at ${target.connectionOptions.address} (namespace ${target.namespace})`);
const connection = await Connection.connect(target.connectionOptions);
const nativeConnection = await NativeConnection.connect(target.connectionOptions);
const client = new Client({ connection, namespace: target.namespace });
const taskQueue = 'agent-harness';
const worker = await Worker.create({
  connection: nativeConnection,
  namespace: target.namespace,
  taskQueue,
  workflowBundle: await bundleWorkflows(),
  activities: { ...plumbing },
});
const running = worker.run();

const shutdown = async (code: number): Promise<never> => {
  worker.shutdown();
  await running.catch(() => undefined);
  await connection.close();
  await nativeConnection.close();
  await target.stop();
  process.exit(code);
};
process.once('SIGINT', () => void shutdown(130));
process.once('SIGTERM', () => void shutdown(143));

try {
  const workflowId = `plumbing-${Date.now()}`;
  const handle = await client.workflow.start('plumbingWorkflow', { taskQueue, workflowId, args: [{ name: 'agent-harness' }] });
  log(`Started ${workflowId}; sending the 'proceed' signal`);
  await handle.signal('proceed', { note: 'approved by main job' });
  log(`Result: ${JSON.stringify(await handle.result())}`);
  if (target.uiUrl) log(`Web UI: ${target.uiUrl}/namespaces/${target.namespace}/workflows/${workflowId}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await shutdown(1);
}
if (exitWhenDone) await shutdown(0);
log('Server and worker stay up for inspection; Ctrl-C to stop.');
