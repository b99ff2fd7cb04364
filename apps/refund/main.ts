/**
 * The main job (`npm start`): the refund story on embedded defaults.
 * 1. start (or reuse) the Temporal dev server, or use TEMPORAL_ADDRESS;
 * 2. run a worker in this process (SQLite evidence store, scripted model unless a real provider is
 *    configured in the environment, see docs/models.md);
 * 3. start a refund run for a sample request, signed with the local demo customer's key (who the run is
 *    for is verified, not typed), show it waiting in `awaiting_confirmation` with the human
 *    request, approve it the way an operator would (a decision signed with the local demo approver's
 *    key; both keys created under .data on first run), wait for `succeeded` with a
 *    verified artifact, print the timeline and the Web UI link.
 * `--exit` stops everything when done (CI uses it); by default server and worker stay up for inspection.
 * HARNESS_OTEL traces the run (client, workflow, activities: docs/observability.md).
 * HARNESS_CODEC_KEYS_FILE (or HARNESS_CODEC_KEYS) encrypts every payload in history (docs/security.md).
 */
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import {
  createHarnessClient,
  createHarnessWorker,
  describePayloadCodec,
  harnessSettings,
  installWorkerRuntime,
  redactUrl,
  loadDecisionKey,
  payloadCodecFromEnv,
  resolveTemporal,
  type RunView,
  sendDecision,
  signedPayload,
  startAgentRun,
  tracingFromEnv,
} from '../../src/index.js';
import { app } from './app.js';
import { createRefundComposition } from './composition.js';
import { seedDemoOrder } from './demo-order.js';
import { ensureDemoApprover, ensureDemoCustomer } from './demo-principals.js';
import { refundSettings } from './settings.js';
import { versionedName } from '../../src/index.js';

const exitWhenDone = process.argv.includes('--exit');
const say = (line = ''): void => console.log(line);

async function waitFor(
  handle: { query: <T>(q: string) => Promise<T> },
  ok: (v: RunView) => boolean,
  ms: number,
): Promise<RunView> {
  const deadline = Date.now() + ms;
  for (;;) {
    const view = await handle.query<RunView>('state').catch(() => undefined);
    if (view && ok(view)) return view;
    if (Date.now() > deadline)
      throw new Error(`run did not reach the expected state; last: ${view?.status ?? 'unknown'}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

installWorkerRuntime();
const settings = harnessSettings();
const target = await resolveTemporal({ log: (l) => say(l) });
say(`Temporal: ${target.mode} server at ${target.connectionOptions.address} (namespace ${target.namespace})`);
// Starts and decisions are signed: the demo customer's and approver's keys and the registry that
// trusts them, made on first run.
const demo = ensureDemoApprover();
if (demo.created) say(`Created a local demo approver key ${demo.keyPath} and registry ${demo.registryPath}`);
const demoCustomer = ensureDemoCustomer();
if (demoCustomer.created)
  say(`Created a local demo customer key ${demoCustomer.keyPath} in registry ${demoCustomer.registryPath}`);
const approverKey = loadDecisionKey(demo.keyPath);
const customerKey = loadDecisionKey(demoCustomer.keyPath);
const composition = await createRefundComposition({
  storeUrl: settings.storeUrl,
  refundStorePath: refundSettings().refundStorePath,
  principals: demo.registryPath,
});
const connection = await Connection.connect(target.connectionOptions);
const nativeConnection = await NativeConnection.connect(target.connectionOptions);
const tracing = tracingFromEnv('agent-harness');
// The same codec for the client and the worker: on when HARNESS_CODEC_KEYS_FILE or HARNESS_CODEC_KEYS is set.
const payloadCodec = payloadCodecFromEnv() ?? null;
const client = createHarnessClient({
  connection,
  namespace: target.namespace,
  tracing,
  payloadCodec,
});
say('Bundling workflows and starting a worker...');
const worker = await createHarnessWorker({
  connection: nativeConnection,
  namespace: target.namespace,
  taskQueue: settings.taskQueue,
  composition,
  workflowsPath: app.workflowsPath,
  tracing,
  payloadCodec,
});
const running = worker.run();
say(
  `Worker ${composition.identity} polling '${settings.taskQueue}'; evidence store ${redactUrl(settings.storeUrl)}; model route ${composition.defaultModelRoute}; ${describePayloadCodec(payloadCodec ?? undefined)}`,
);

let stopping = false;
async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    worker.shutdown();
    await running.catch(() => undefined);
    await tracing?.shutdown();
    await composition.close();
    await connection.close();
    await nativeConnection.close();
    await target.stop();
  }
  process.exit(code);
}
process.once('SIGINT', () => void shutdown(130));
process.once('SIGTERM', () => void shutdown(143));

try {
  const { orderId, customerId } = seedDemoOrder(composition.refundStore);
  const message = `My order ${orderId} was paid four days ago and still has not shipped. Please refund it.`;
  const workflowId = `refund-${orderId.toLowerCase()}`;
  say();
  say(`Customer ${customerId}: "${message}"`);
  const handle = await startAgentRun(client, {
    taskQueue: settings.taskQueue,
    workflowId,
    input: {
      schemaVersion: 1,
      profile: { name: 'refund.graph', version: 'v1' },
      task: { message, customerId },
      userId: customerId,
    },
    // The customer signs the start: the run is verifiably theirs (the key's principal is customerId).
    signer: { key: customerKey },
  });
  say(
    `Started run ${workflowId} (refund.graph@v1 under its policy refund.rules@v1), signed by ${customerKey.principal} with key ${customerKey.keyId}`,
  );
  const waiting = await waitFor(
    handle,
    (v) => v.status === 'awaiting_confirmation' || v.status === 'failed' || v.status === 'succeeded',
    60_000,
  );
  if (waiting.status !== 'awaiting_confirmation')
    throw new Error(`expected awaiting_confirmation, got ${waiting.status}`);
  const req = waiting.humanRequest!;
  say();
  say(`Run is ${waiting.status} (${waiting.waitingReason}). Human request:`);
  say(`  decision type:    ${req.decisionType}`);
  say(`  summary:          ${req.requestSummary}`);
  say(`  verified facts:   ${req.verifiedFacts.join(', ')}`);
  say(`  policy evidence:  ${req.policyEvidence.join(', ') || '-'}`);
  say(`  proposed action:  ${req.proposedAction}`);
  say(`  allowed:          ${req.allowedDecisions.join(' | ')}   expires ${req.expiresAt}`);
  say();
  const actionId = waiting.pendingAction!.actionId;
  say(`Operator ${approverKey.principal} approves ${actionId}, signed with key ${approverKey.keyId}`);
  const payload = signedPayload(
    approverKey,
    waiting,
    'approve',
    { reason: 'main job demo' },
    waiting.pendingAction!,
  );
  const answer = await sendDecision(handle, 'approve', payload);
  say(`  the run answered: ${answer.accepted ? 'accepted' : `refused (${answer.code}: ${answer.message})`}`);
  if (!answer.accepted) throw new Error(`the approval was refused: ${answer.code}`);
  const result = await handle.result();
  const view = await handle.query<RunView>('state');
  say();
  say(`Run ${result.status}: ${JSON.stringify(result.output)}`);
  for (const a of view.artifacts)
    say(`  artifact ${a.id} [${a.provenance}] ${a.type}${a.externalId ? ` ${a.externalId}` : ''}`);
  const verified = view.artifacts.find((a) => a.provenance === 'verified');
  if (result.status !== 'succeeded' || !verified)
    throw new Error('the run did not succeed with a verified artifact');
  say();
  say('Timeline (evidence store events):');
  for (const e of await composition.store.listEvents(workflowId)) {
    if (
      [
        'state.transitioned',
        'tool.completed',
        'human.requested',
        'human.decided',
        'eval.completed',
        'run.completed',
      ].includes(e.type)
    ) {
      const d = e.data;
      const detail =
        e.type === 'state.transitioned'
          ? `${String(d.fromStatus)} -> ${String(d.toStatus)}`
          : e.type === 'tool.completed'
            ? `${versionedName(String(d.tool), String(d.version))} #${String(d.seq)}`
            : e.type === 'eval.completed'
              ? `${String(d.evaluator)} passed=${String(d.passed)}`
              : '';
      say(`  #${String(e.seq).padStart(3)} ${e.occurredAt} ${e.type.padEnd(18)} ${detail}`);
    }
  }
  say();
  if (target.uiUrl) say(`Web UI: ${target.uiUrl}/namespaces/${target.namespace}/workflows/${workflowId}`);
} catch (err) {
  console.error(`Main job failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
}
if (exitWhenDone) await shutdown(0);
say('Server and worker stay up for inspection (harness show / harness events, the Web UI); Ctrl-C to stop.');
