import { recordFixtureIfAsked } from '../support/record-fixture.js';
import type { WorkflowHandle } from '@temporalio/client';
import { decide } from '../support/decisions.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { waitForState } from '../support/harness.js';
import { killAllWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { createFaultRig, resultOf, type FaultRig } from './fault-rig.js';
import { historyOf } from '../support/history.js';
import { testRunId } from '../support/run-id.js';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { verifyProofBundle } from '../../src/client/proof/verify-bundle.js';
import { testAttestation, writeAttestationFiles } from '../support/attestation.js';
import { artifactsDir } from '../support/browser.js';
import { openRunPage } from '../support/run-page.js';
import type { AttestationRegistry } from '../../src/contract/chain-head.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The tenant of the run the run page shows. */
const PAGE_TENANT = 'write-loss-page';

/** refund.create is the 4th invocation of the refund graph (order.read, logistics.read, policy.search.refund). */
const CREATE_SEQ = 4;
const SLOW_CREATE = { HARNESS_REFUND_STORE_LATENCY_MS: 'createRefund=120000' };

/**
 * Scenarios 2 and 3: the worker dies while `refund.create` runs. The write is never dispatched again;
 * its outcome is settled from the evidence store, the tool's reconciler, or a person.
 */
describe('faults: the worker dies during a write', { timeout: 240_000 }, () => {
  // Each test gets its own rig (task queue and stores): every test refunds ORD-1001 in full once.
  let rig: FaultRig;
  const rigs: FaultRig[] = [];
  const handles: WorkflowHandle[] = [];
  async function newRig(): Promise<void> {
    rig = await createFaultRig('write-loss');
    rigs.push(rig);
  }
  afterEach(async () => {
    await killAllWorkerProcesses();
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    for (const h of handles) await h.terminate('test cleanup').catch(() => undefined);
    for (const r of rigs) await r.close();
  });

  const rowsOf = (handle: WorkflowHandle) =>
    rig.refundRows().filter((r) => r.idempotency_key === `${handle.workflowId}/${CREATE_SEQ}`);

  /** Start a refund of ORD-1001 on a worker with a slow createRefund, approve it, and kill the worker once the write's intent is durable. */
  async function approveAndKillDuringCreate(
    env: Record<string, string>,
    workflowId?: string,
    afterIntent?: (handle: WorkflowHandle) => Promise<void>,
    input: Partial<AgentRunInput> = {},
  ): Promise<{ handle: WorkflowHandle; dead: WorkerProcess }> {
    await newRig();
    const dead = await rig.worker({ env });
    const handle = await rig.start(
      {
        task: { message: 'refund ORD-1001 please, it has not shipped', customerId: 'C1001' },
        activityTimeouts: { writeHeartbeatSeconds: 2 },
        ...input,
      },
      workflowId,
    );
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
    await afterIntent?.(handle);
    await dead.kill();
    return { handle, dead };
  }

  /**
   * The lost attempt was never dispatched blindly again: it was settled through resolveLostInvocation,
   * and a new attempt (under the same idempotency key) ran only after it was settled not applied.
   */
  async function expectWriteAttempts(handle: WorkflowHandle, attempts: number): Promise<void> {
    const history = await historyOf(handle);
    const runTools = history.filter(
      (e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' && e.activityType === 'runToolV3',
    );
    const timedOut = history.filter((e) => e.type === 'EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT');
    expect(timedOut).toEqual([expect.objectContaining({ timeoutType: 'TIMEOUT_TYPE_HEARTBEAT' })]);
    expect(history.some((e) => e.activityType === 'resolveLostInvocation')).toBe(true);
    // order.read, logistics.read, policy.search.refund, refund.create (each attempt), and refund.verify when it got that far
    expect(runTools.length).toBeLessThanOrEqual(4 + attempts);
    const record = await rig.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.intents.map((i) => i.attempt)).toEqual([...Array(attempts).keys()].map((i) => i + 1));
  }

  it('scenario 3: the row was committed but the worker died before completing the activity: the reconciler settles it, one refund, no human', async () => {
    // The worker processes sign chain heads with an attestation key (docs/evidence-chain.md).
    const attestation = testAttestation();
    const { keyFile } = writeAttestationFiles(
      mkdtempSync(join(tmpdir(), 'harness-attestation-')),
      attestation,
    );
    const { handle } = await approveAndKillDuringCreate(
      {
        ...SLOW_CREATE,
        HARNESS_REFUND_STORE_LATENCY_PHASE: 'after_commit',
        HARNESS_ATTESTATION_KEY: keyFile,
      },
      undefined,
      async (h) => {
        await expect.poll(() => rowsOf(h).length, { timeout: 30_000 }).toBe(1);
      },
      // In a tenant, so the run page of the run service shows it.
      { tenantId: PAGE_TENANT, userId: 'C1001' },
    );
    const healthy = await rig.worker({ env: { HARNESS_ATTESTATION_KEY: keyFile } });
    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    const view = await handle.query<RunView>('state');
    expect(view.invocations.find((i) => i.seq === CREATE_SEQ)).toMatchObject({
      tool: 'refund.create',
      status: 'succeeded',
      resolvedBy: 'reconciler',
    });
    expect(view.invocations.find((i) => i.tool === 'refund.verify')?.status).toBe('succeeded');
    const rows = rowsOf(handle);
    expect(rows).toHaveLength(1);
    expect(result.output.refundId).toBe(rows[0]!.id);
    const record = await rig.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.result).toMatchObject({
      status: 'succeeded',
      source: 'reconciler',
      externalId: rows[0]!.id,
    });
    await expectWriteAttempts(handle, 1);
    // The proof of the run (docs/evidence-chain.md): approval, worker kill and reconciliation verify,
    // the chain against the heads both worker processes signed.
    const registry = attestation.registry;
    const proof = verifyProofBundle(
      await collectProofBundle(rig.composition.store, rig.client, handle.workflowId, registry),
    );
    expect(proof.checks.filter((c) => !c.ok)).toEqual([]);
    expect(proof.checks.map((c) => c.code)).toContain('heads.ok');
    await healthy.kill();
    await expectRunPage(handle.workflowId, registry);
  });

  /**
   * The run page (docs/api.md) of the run whose worker was killed: the run succeeded and verifies,
   * the refund applied once under one attempt settled by the reconciler, and the timeline shows the
   * lost outcome before its settlement, in order; "Jump to first failure" finds the lost outcome.
   */
  async function expectRunPage(runId: string, registry: AttestationRegistry): Promise<void> {
    const opened = await openRunPage(
      { client: rig.client, store: rig.composition.store, taskQueue: rig.taskQueue },
      runId,
      PAGE_TENANT,
      registry,
    );
    const page = opened.page;
    try {
      await expect
        .poll(() => page.locator('[data-role=status]').innerText(), { timeout: 60_000 })
        .toBe('succeeded');
      await expect
        .poll(() => page.locator('[data-role=badge]').innerText(), { timeout: 60_000 })
        .toBe('verified');
      const effect = page.locator('[data-role=effect][data-tool="refund.create"]');
      await expect.poll(() => effect.locator('[data-role=once] tr').count(), { timeout: 30_000 }).toBe(2);
      expect(await effect.locator('[data-role=applied]').innerText()).toBe('applied 1 time');
      const attempt = await effect.locator('[data-role=once] tr').nth(1).innerText();
      expect(attempt).toContain('succeeded');
      expect(attempt).toContain('reconciler');
      expect(await effect.locator('[data-role=approval]').count()).toBeGreaterThan(0);
      // Each timeline row reads "#seq type summary".
      const rows = await page.locator('.ev').allInnerTexts();
      const row = (type: string, ...has: string[]) =>
        rows.findIndex((r) => r.includes(type) && has.every((x) => r.includes(x)));
      const lost = row('tool.failed', 'refund.create', 'outcome_unknown');
      const reconciled = row('recovery.decided', 'refund.create #4', 'reconcile (tool.outcome_unknown)');
      const settled = row('tool.completed', 'refund.create');
      const verified = row('tool.completed', 'refund.verify');
      expect(lost).toBeGreaterThan(-1);
      expect(reconciled).toBeGreaterThan(lost);
      expect(settled).toBeGreaterThan(reconciled);
      expect(verified).toBeGreaterThan(settled);
      await page.locator('#first-failure').click();
      expect(await page.locator('[data-role=event-json]').innerText()).toContain('outcome_unknown');
      await page.screenshot({ path: join(artifactsDir, 'run-page-worker-killed.png'), fullPage: true });
    } finally {
      await opened.close();
    }
  }

  it('scenario 2 (refund.create has a reconciler): the worker died before the row was written: the reconciler reports not_applied, the approved refund runs again under the same key (effectively once), no human', async () => {
    const { handle } = await approveAndKillDuringCreate(SLOW_CREATE);
    const healthy = await rig.worker();
    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refunded');
    const view = await handle.query<RunView>('state');
    expect(view.invocations.filter((i) => i.tool === 'refund.create')).toEqual([
      expect.objectContaining({ seq: CREATE_SEQ, status: 'succeeded' }),
    ]);
    expect(view.invocations.find((i) => i.tool === 'refund.verify')?.status).toBe('succeeded');
    const rows = rowsOf(handle);
    expect(rows).toHaveLength(1);
    expect(result.output.refundId).toBe(rows[0]!.id);
    const record = await rig.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.results.map((r) => [r.attempt, r.status, r.source])).toEqual([
      [1, 'not_applied', 'reconciler'],
      [2, 'succeeded', 'executor'],
    ]);
    const events = await rig.composition.store.listEvents(handle.workflowId);
    expect(
      events
        .filter((e) => e.type === 'recovery.decided')
        .map((e) => [(e.data as { decision: string }).decision, (e.data as { reason: string }).reason]),
    ).toEqual([
      ['reconcile', 'tool.outcome_unknown'],
      ['retry_attempt', 'not_applied:reconciler'],
    ]);
    expect(
      events.some(
        (e) => e.type === 'human.requested' && JSON.stringify(e.data).includes('unknown_write_outcome'),
      ),
    ).toBe(false);
    await expectWriteAttempts(handle, 2);
    await recordFixtureIfAsked(rig.client, handle.workflowId, 'refund-graph-baseline3-write-retry-v1');
    await healthy.kill();
  });

  it('scenario 2, human path: the reconciler cannot tell (the key names a refund of another order), the run waits for a reconcile signal', async () => {
    const workflowId = testRunId('fault-write-loss-unknown');
    // While the write is in flight, someone else's refund appears under the key this run uses: the
    // reconciler finds a refund that does not match the call and answers `unknown` (an operator must look).
    const { handle } = await approveAndKillDuringCreate(SLOW_CREATE, workflowId, () =>
      rig.composition.refundStore
        .createRefund({
          orderId: 'ORD-1002',
          amountCents: 4990,
          reason: 'conflict drill',
          idempotencyKey: `${workflowId}/${CREATE_SEQ}`,
        })
        .then(() => undefined),
    );
    const healthy = await rig.worker();
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_human', 60_000);
    expect(waiting.waitingReason).toBe('unknown_write_outcome');
    expect(waiting.pendingAction).toMatchObject({
      kind: 'reconcile',
      invocationSeq: CREATE_SEQ,
      tool: 'refund.create',
    });
    expect(waiting.humanRequest?.allowedDecisions).toEqual(['succeeded', 'failed', 'not_applied']);
    expect(waiting.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('outcome_unknown');

    await handle.signal('reconcile', {
      invocationSeq: CREATE_SEQ + 1,
      outcome: 'succeeded',
      actor: 'mallory',
    });
    await decide(
      handle,
      'reconcile',
      { invocationSeq: CREATE_SEQ, outcome: 'not_applied', evidence: { checked: 'refunds table' } },
      waiting,
    );
    const result = await resultOf(handle);
    expect(result.status).toBe('succeeded');
    expect(result.output.outcome).toBe('refused');
    const view = await handle.query<RunView>('state');
    // The person's not_applied gets the approved write run again under the same key; the business
    // system refuses it (the key names another refund): a business failure, not a lost refund.
    expect(view.invocations.find((i) => i.seq === CREATE_SEQ)?.status).toBe('failed_terminal');
    const record = await rig.composition.store.getInvocation(handle.workflowId, CREATE_SEQ);
    expect(record?.results.map((r) => [r.attempt, r.status, r.source])).toEqual([
      [1, 'not_applied', 'operator'],
      [2, 'failed_terminal', 'executor'],
    ]);
    expect(record?.result?.errorCode).toBe('refund.idempotency_key_reused');
    // exactly one effect under the key: the pre-existing one; no refund of ORD-1001 was made
    expect(rowsOf(handle)).toEqual([expect.objectContaining({ order_id: 'ORD-1002', amount_cents: 4990 })]);
    const events = await rig.composition.store.listEvents(handle.workflowId);
    expect(
      events.filter((e) => e.type === 'human.signal_rejected').map((e) => (e.data as { code: string }).code),
    ).toEqual(['signal.action_mismatch']);
    await expectWriteAttempts(handle, 2);
    await healthy.kill();
  });
});
