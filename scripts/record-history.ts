/**
 * Record a finished workflow's history as a replay fixture:
 *   npx tsx scripts/record-history.ts <workflowId> <fixture-name>
 * Writes test/fixtures/histories/<fixture-name>.json. Uses the server of temporal-dev.yml or
 * TEMPORAL_ADDRESS.
 */
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { projectRoot } from '../src/devserver/config.js';
import { resolveTemporal } from '../src/devserver/temporal-target.js';
import { recordHistory } from '../src/worker/history-fixtures.js';

const [workflowId, name] = process.argv.slice(2);
if (!workflowId || !name) {
  console.error('usage: tsx scripts/record-history.ts <workflowId> <fixture-name>');
  process.exit(2);
}
const target = await resolveTemporal();
const connection = await Connection.connect(target.connectionOptions);
try {
  const client = new Client({ connection, namespace: target.namespace });
  const file = await recordHistory(
    client,
    workflowId,
    join(projectRoot, 'test', 'fixtures', 'histories'),
    name,
  );
  console.log(`wrote ${file}`);
} finally {
  await connection.close();
  await target.stop();
}
