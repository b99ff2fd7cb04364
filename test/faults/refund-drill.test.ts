import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { signedPayload } from '../../src/client/decisions/send-decision.js';
import { TEST_KEYS, writeKeyFile } from '../support/principals.js';
import { join } from 'node:path';
import { decide } from '../support/decisions.js';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { runCli, until, type CliResult } from '../e2e/cli-support.js';
import { waitForState } from '../support/harness.js';
import { signalWithTemporalCli } from '../support/temporal.js';
import { killAllWorkerProcesses } from '../support/worker-process.js';
import { createFaultRig, resultOf, type FaultRig } from './fault-rig.js';

/** refund.create is the 4th invocation of the refund graph (order.read, logistics.read, policy.search.refund). */
const CREATE_SEQ = 4;
/** The drill knob: refund.create without its reconciler (a connector whose outcome cannot be checked). */
const NO_RECONCILER = { HARNESS_REFUND_RECONCILE: 'off' };

interface ShowJson {
  readonly workflowId: string;
  readonly state: RunView;
}

interface ListRow {
  readonly workflowId: string;
  readonly status: string | null;
  readonly waitingReason: string | null;
}

/**
 * The fault drill of issue 7, as a person runs it: kill the worker during refund.create (the row is
 * committed, the call still sleeping), see the run waiting with unknown_write_outcome in `harness show`
 * and in the UI's visibility query, reconcile it (with `harness reconcile`, or with `temporal workflow
 * signal`), and find the run succeeded on exactly one refund: refund.verify checks the refund the
 * person named, which stands in for the observation the lost activity never returned.
 */
describe('fault drill: a lost refund.create settled by a person', { timeout: 240_000 }, () => {
  const rigs: FaultRig[] = [];
  const handles: WorkflowHandle[] = [];
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    for (const r of rigs) await r.close();
  });

  interface Drill {
    readonly rig: FaultRig;
    readonly handle: WorkflowHandle;
    readonly refundId: string;
    readonly key: string;
    readonly cli: (...args: string[]) => Promise<CliResult>;
    readonly stopWorker: () => Promise<void>;
  }

  /** Steps 1-3: start, approve, kill worker A after the refund row is committed, start worker B. */
  async function loseTheWrite(name: string): Promise<Drill> {
    const r = await createFaultRig(name);
    rigs.push(r);
    const cliEnvOf: NodeJS.ProcessEnv = {
      HARNESS_TASK_QUEUE: r.taskQueue,
      HARNESS_STORE_URL: `sqlite:${join(r.dir, 'evidence.db')}`,
      HARNESS_REFUND_DB: join(r.dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      // the operator's signing key (a registered operator)
      HARNESS_KEY: writeKeyFile(TEST_KEYS.ops, r.dir),
    };
    // 1. worker A: no reconciler, createRefund commits and then sleeps 8 s
    const workerA = await r.worker({
      env: {
        ...NO_RECONCILER,
        HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=8000',
        HARNESS_REFUND_STORE_LATENCY_PHASE: 'after_commit',
      },
    });
    // 2. start, approve, wait for the committed row, kill A while the call still sleeps
    const h = await r.start({
      task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
      activityTimeouts: { writeHeartbeatSeconds: 3 },
    });
    handles.push(h);
    const key = `${h.workflowId}/${CREATE_SEQ}`;
    const waiting = await waitForState(h, (v) => v.status === 'awaiting_confirmation', 60_000);
    await decide(h, 'approve', {}, waiting);
    await expect
      .poll(async () => (await r.composition.refundStore.findRefundByKey(key)) !== undefined, {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(true);
    await workerA.kill();
    const refund = (await r.composition.refundStore.findRefundByKey(key))!;
    expect(refund).toMatchObject({ orderId: 'ORD-1001' });
    // 3. worker B: same stores, still no reconciler, no latency
    const workerB = await r.worker({ env: NO_RECONCILER });
    return {
      rig: r,
      handle: h,
      refundId: refund.id,
      key,
      cli: (...args: string[]) => runCli(args, cliEnvOf),
      stopWorker: () => workerB.kill(),
    };
  }

  /** Step 6: the run verified the refund the person named and succeeded; one refund, one intent, the person's record. */
  async function expectSettled(d: Drill, actor: string): Promise<void> {
    const { rig: r, handle: h } = d;
    const result = await resultOf(h);
    expect(result.status, JSON.stringify(result.terminalReason)).toBe('succeeded');
    expect(result.output).toMatchObject({ outcome: 'refunded', refundId: d.refundId });
    const view = await h.query<RunView>('state');
    expect(view.invocations.find((i) => i.seq === CREATE_SEQ)).toMatchObject({
      tool: 'refund.create',
      status: 'succeeded',
      externalId: d.refundId,
      resolvedBy: `operator:${actor}`,
    });
    const verify = view.invocations.find((i) => i.tool === 'refund.verify');
    expect(verify?.status).toBe('succeeded');
    expect(verify!.seq).toBeGreaterThan(CREATE_SEQ);
    const verifyRecord = await r.composition.store.getInvocation(h.workflowId, verify!.seq);
    expect(verifyRecord?.result?.output).toMatchObject({ refundId: d.refundId, status: 'passed' });
    // completion names the operator-settled action and the check that verified it
    const events = await r.composition.store.listEvents(h.workflowId);
    const verdict = events.find((e) => e.type === 'eval.completed');
    const verdictData = verdict?.data as { passed?: boolean; reasonCodes?: string[] } | undefined;
    expect(verdictData?.passed).toBe(true);
    expect(verdictData?.reasonCodes).toContain('completion.action_verified');
    expect(verdictData?.reasonCodes).toContain('completion.operator_attested_action');
    // exactly one refund under the run's key, one intent, and the person's decision in the evidence store
    const rows = r.refundRows().filter((row) => row.order_id === 'ORD-1001');
    expect(rows).toEqual([expect.objectContaining({ id: d.refundId, idempotency_key: d.key })]);
    const record = await r.composition.store.getInvocation(h.workflowId, CREATE_SEQ);
    expect(record?.intents).toEqual([
      expect.objectContaining({ tool: 'refund.create', effect: 'write', idempotencyKey: d.key }),
    ]);
    expect(record?.result).toMatchObject({
      status: 'succeeded',
      externalId: d.refundId,
      source: 'operator',
    });
    expect((record?.result as { evidence?: { actor?: string } } | undefined)?.evidence?.actor).toBe(actor);
    await d.stopWorker();
    if (actor === 'ops@example.com')
      await recordFixtureIfAsked(r.client, h.workflowId, 'refund-graph-baseline3-operator-recorded-v1');
  }

  it('kill during refund.create, run waits with unknown_write_outcome, `harness reconcile` settles it, one refund', async () => {
    const d = await loseTheWrite('refund-drill');
    const { rig: r, handle: h, cli } = d;

    // 4. `harness show` tells the person what to do
    const shown = await until(
      () => cli('show', h.workflowId, '--json'),
      (res) => res.code === 0 && (JSON.parse(res.stdout) as ShowJson).state.status === 'awaiting_human',
      60_000,
    );
    expect(shown.code, shown.stderr).toBe(0);
    const state = (JSON.parse(shown.stdout) as ShowJson).state;
    expect(state).toMatchObject({
      status: 'awaiting_human',
      waitingReason: 'unknown_write_outcome',
      pendingAction: { kind: 'reconcile', invocationSeq: CREATE_SEQ, tool: 'refund.create' },
    });
    expect(state.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('outcome_unknown');
    const readable = await cli('show', h.workflowId);
    expect(readable.code, readable.stderr).toBe(0);
    expect(readable.stdout).toContain(`harness reconcile ${h.workflowId} --invocation ${CREATE_SEQ}`);

    // ... and the UI's visibility queries find it (visibility is eventually consistent)
    const listed = await until(
      () => cli('list', '--status', 'awaiting_human', '--limit', '1000', '--json'),
      (res) =>
        res.code === 0 &&
        (JSON.parse(res.stdout) as ListRow[]).some((row) => row.workflowId === h.workflowId),
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as ListRow[]).find((row) => row.workflowId === h.workflowId),
    ).toMatchObject({
      status: 'awaiting_human',
      waitingReason: 'unknown_write_outcome',
    });
    const uiQuery = `WorkflowType = 'agentRun' AND AgentWaitingReason = 'unknown_write_outcome' AND WorkflowId = '${h.workflowId}'`;
    const found = await until(
      async () => {
        const ids: string[] = [];
        for await (const info of r.client.workflow.list({ query: uiQuery })) ids.push(info.workflowId);
        return ids;
      },
      (ids) => ids.length > 0,
    );
    expect(found).toEqual([h.workflowId]);

    // 5. a wrong decision is refused and changes nothing: an external id with outcome failed
    const refused = await cli(
      'reconcile',
      h.workflowId,
      '--invocation',
      String(CREATE_SEQ),
      '--outcome',
      'failed',
      '--external-id',
      d.refundId,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--external-id');

    // 6. the person looked the refund up and reconciles, naming it
    const reconciled = await cli(
      'reconcile',
      h.workflowId,
      '--invocation',
      String(CREATE_SEQ),
      '--outcome',
      'succeeded',
      '--external-id',
      d.refundId,
      '--evidence',
      JSON.stringify({ checkedIn: 'refund console', ticket: 'OPS-1' }),
    );
    expect(reconciled.code, reconciled.stderr + reconciled.stdout).toBe(0);
    expect(reconciled.stdout).toContain(
      `reconcile accepted by ${h.workflowId} from ${TEST_KEYS.ops.principal}`,
    );
    await expectSettled(d, TEST_KEYS.ops.principal);
  });

  it('the same drill settled with `temporal workflow signal` (no harness CLI)', async () => {
    const d = await loseTheWrite('refund-drill-tcli');
    const { handle: h } = d;
    const waiting = await waitForState(h, (v) => v.status === 'awaiting_human', 60_000);
    const signal = (input: unknown): void => signalWithTemporalCli(h.workflowId, 'reconcile', input);
    // a malformed payload (externalId with a failure) is refused by the run and changes nothing
    signal({ invocationSeq: CREATE_SEQ, outcome: 'failed', externalId: d.refundId, actor: 'ops' });
    const refused = await waitForState(h, (v) => v.signalRejections.length > 0, 30_000);
    expect(refused.status).toBe('awaiting_human');
    expect(refused.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('outcome_unknown');
    // signed by a registered operator (what `harness reconcile --print` prints)
    const fields = { invocationSeq: CREATE_SEQ, outcome: 'succeeded', externalId: d.refundId };
    signal(signedPayload(TEST_KEYS.ops, waiting, 'reconcile', fields, waiting.pendingAction!));
    await expectSettled(d, TEST_KEYS.ops.principal);
  });
});
