import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { NativeConnection, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import {
  collectRunEvidence,
  createHarnessWorker,
  failureReplayer,
  decodeHistoryPayloads,
  isTerminal,
  payloadCodecFromEnv,
  signedPayload,
  startAgentRun,
  WAITING_STATUSES,
  type DecisionKey,
  type DecisionSignalName,
  type RunEvidence,
} from '../../../src/index.js';
import type { RunView } from '../../../src/index.js';
import { createRefundComposition, type RefundComposition } from '../composition.js';
import { readBusinessRows, toBusinessRefunds } from './business-rows.js';
import { checkCase, evidenceComplete, type CaseChecks } from './case-checks.js';
import type { CaseObservation, ObservedInvocation } from './case-observation.js';
import {
  caseDecisions,
  caseDrills,
  caseRequester,
  caseTask,
  LOST_WRITE_HEARTBEAT_SECONDS,
  splitNameVersion,
  type EvalCase,
} from './eval-case.js';
import { evalSigners, type EvalSigners } from './eval-principals.js';
import { writeFailureSample } from './failure-sample.js';

/**
 * The run's history for a failure sample. A sample is a plain-text debugging artifact (it holds the
 * evidence and business rows too), so with the payload codec on its history is written decoded: it
 * replays and reads without the keys.
 */
async function sampleHistory(
  handle: WorkflowHandle,
): Promise<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>> {
  const history = await handle.fetchHistory();
  const codec = payloadCodecFromEnv();
  return codec ? decodeHistoryPayloads(history, codec) : history;
}

/** Where the cases run: a client and a worker connection to one namespace. */
export interface EvalTemporal {
  readonly client: Client;
  readonly connection: NativeConnection;
  readonly namespace: string;
}

export interface CaseRunOptions {
  readonly temporal: EvalTemporal;
  readonly workflowBundle: WorkflowBundleWithSourceMap | { codePath: string };
  /** Each case gets `<workDir>/<case_id>/` for its stores. */
  readonly workDir: string;
  /** Failure samples go to `<failuresDir>/<case_id>/`; none are written when absent. */
  readonly failuresDir?: string;
  /** Unique per evaluation: prefixes workflow ids and task queues. */
  readonly runTag: string;
  /** Run every case under this policy (`name@vN`) instead of its own. */
  readonly policyOverride?: string;
  /** Per case; default 60 s. */
  readonly timeoutMs?: number;
  /**
   * A bundles folder (docs/control-plane.md) for the cases' workers: its rollout gives each run an
   * arm (by workflow id), and the report splits the metrics by arm.
   */
  readonly bundles?: string;
}

/** One case's outcome. */
export interface CaseRun {
  readonly evalCase: EvalCase;
  readonly observation: CaseObservation;
  readonly checks: CaseChecks;
  readonly failureSample?: string;
  /** What the evidence store and the Temporal history prove about the run (the evidence metrics' input). */
  readonly evidence?: RunEvidence;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How long the driver waits for a pause's events to reach the evidence store. */
const PAUSE_EVENTS_WAIT_MS = 10_000;

/**
 * Wait until the events written before a pause (up to its `checkpoint.saved`) are in the store.
 * @returns false when they did not arrive in time (the case then fails on evidence completeness).
 */
async function waitForPauseEvents(
  c: RefundComposition,
  runId: string,
  actionId: string,
  deadline: number,
): Promise<boolean> {
  const until = Math.min(deadline, Date.now() + PAUSE_EVENTS_WAIT_MS);
  while (Date.now() < until) {
    const events = await c.store.listEvents(runId, { limit: 5000 });
    const asked = events.findIndex(
      (e) =>
        e.type === 'human.requested' &&
        (e.data.action as { actionId?: string } | undefined)?.actionId === actionId,
    );
    if (asked >= 0 && events.slice(asked).some((e) => e.type === 'checkpoint.saved')) return true;
    await sleep(50);
  }
  return false;
}

/**
 * Drive the run: answer confirmations and inputs as the case says, stop at a terminal status or at a
 * waiting status the case does not answer. Returns the last view.
 * @throws Error on timeout, or when the workflow closed without a readable state.
 */
async function drive(
  handle: WorkflowHandle,
  c: EvalCase,
  composition: RefundComposition,
  deadline: number,
  signers: EvalSigners,
): Promise<RunView> {
  const decisions = caseDecisions(c);
  let next = 0;
  let approvals = 0;
  let handled = -1;
  for (;;) {
    if (Date.now() > deadline) throw new Error('timed out driving the run');
    let v: RunView;
    try {
      v = await handle.query<RunView>('state');
    } catch (err) {
      const d = await handle.describe().catch(() => undefined);
      if (d && d.status.name !== 'RUNNING')
        throw new Error(`workflow ${d.status.name}: ${(err as Error).message}`);
      await sleep(100);
      continue;
    }
    if (isTerminal(v.status)) {
      await handle.result().catch(() => undefined); // the final events are flushed before the workflow closes
      return v;
    }
    const pending = v.pendingAction;
    if (WAITING_STATUSES.includes(v.status) && pending && v.stateVersion !== handled) {
      await waitForPauseEvents(composition, handle.workflowId, pending.actionId, deadline); // completeness is checked at the end
      let signal: { name: DecisionSignalName; payload: Record<string, unknown> } | undefined;
      const sign = (key: DecisionKey, name: DecisionSignalName, fields: Record<string, unknown>) => ({
        name,
        payload: signedPayload(key, v, name, fields, pending),
      });
      if (pending.kind === 'confirmation' || pending.kind === 'human') {
        const d = decisions[next];
        if (d === undefined) return v;
        next += 1;
        const reason = d === 'approve' ? {} : { reason: 'the case rejects' };
        if (v.humanRequest?.decisionType === 'customer_confirmation') {
          // The customer's own confirmation (confirm.user.*), never an approver's.
          if (!signers.customer) return v;
          signal = sign(signers.customer, d === 'approve' ? 'confirm' : 'reject', reason);
        } else {
          // Successive approvals come from different approvers (four-eyes above the threshold).
          signal = sign(signers.approvers[approvals % 2]!, d, reason);
          if (d === 'approve') approvals += 1;
        }
      } else if (
        pending.kind === 'input' &&
        pending.slot !== undefined &&
        c.provide?.[pending.slot] !== undefined
      ) {
        signal = sign(signers.approvers[0], 'provideInput', {
          slot: pending.slot,
          value: c.provide[pending.slot],
        });
      } else if (
        pending.kind === 'reconcile' &&
        pending.invocationSeq !== undefined &&
        c.reconcile === 'look_up'
      ) {
        signal = sign(
          signers.approvers[0],
          'reconcile',
          await lookUpOutcome(composition, handle.workflowId, pending.invocationSeq),
        );
      } else return v;
      await handle.signal(signal.name, signal.payload);
      if (c.duplicate_signals) await handle.signal(signal.name, signal.payload);
      handled = v.stateVersion;
    }
    await sleep(100);
  }
}

/**
 * What an operator finds for a lost refund.create: the refund under the call's idempotency key
 * (`<runId>/<seq>`, the key the harness gives every write) or none.
 */
async function lookUpOutcome(
  c: RefundComposition,
  runId: string,
  seq: number,
): Promise<Record<string, unknown>> {
  const refund = await c.refundStore.findRefundByKey(`${runId}/${seq}`);
  return refund === undefined
    ? {
        invocationSeq: seq,
        outcome: 'not_applied',
        evidence: { lookedUp: 'idempotency key', found: false },
      }
    : {
        invocationSeq: seq,
        outcome: 'succeeded',
        externalId: refund.id,
        evidence: { lookedUp: 'idempotency key', found: true },
      };
}

function emptyObservation(
  c: EvalCase,
  workflowId: string,
  error: string,
  durationMs: number,
  owner: string,
): CaseObservation {
  return {
    caseId: c.case_id,
    workflowId,
    status: 'error',
    waitingReason: null,
    currentNode: null,
    completedSteps: [],
    facts: {},
    artifacts: [],
    invocations: [],
    events: [],
    budget: { steps: 0, modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
    refunds: [],
    orderOwner: owner,
    output: null,
    terminalReason: null,
    durationMs,
    evidenceComplete: false,
    error,
  };
}

/**
 * Run one case as a real run: a fresh refund business store seeded from `initial_state`, a fresh
 * evidence store, its own worker on a unique task queue, `agentRun` with the case's profile and policy
 * on the scripted model route, driven as the case says; then check it. A failed case leaves a failure
 * sample when `failuresDir` is given. Runs still waiting at the end are terminated.
 *
 * Never throws for a run that misbehaves (that is a failed case with status `error`); throws only when
 * the stores or the worker cannot be set up.
 */
export async function runCase(c: EvalCase, o: CaseRunOptions): Promise<CaseRun> {
  const dir = join(o.workDir, c.case_id);
  mkdirSync(dir, { recursive: true });
  const refundStorePath = join(dir, 'refund.db');
  const task = caseTask(c);
  const requester = caseRequester(c); // signs the start; confirms as the run's customer
  const signers = evalSigners(requester);
  const composition = await createRefundComposition({
    storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
    refundStorePath,
    env: o.bundles ? { HARNESS_BUNDLES: o.bundles } : {},
    drills: caseDrills(c),
    principals: signers.registry,
  });
  const seeded = composition.refundStore.seedCase(c.initial_state, new Date());
  const taskQueue = `eval-${o.runTag}-${c.case_id}`;
  const workflowId = `eval-${o.runTag}-${c.case_id}`;
  const worker = await createHarnessWorker({
    connection: o.temporal.connection,
    namespace: o.temporal.namespace,
    taskQueue,
    composition,
    workflowBundle: o.workflowBundle,
  });
  const running = worker.run();
  const started = Date.now();
  let observation: CaseObservation;
  let handle: WorkflowHandle | undefined;
  try {
    const profile = splitNameVersion(c.profile ?? 'refund.graph@v1');
    const policy = splitNameVersion(o.policyOverride ?? c.policy ?? 'refund.rules@v1');
    handle = await startAgentRun(o.temporal.client, {
      taskQueue,
      workflowId,
      input: {
        schemaVersion: 1,
        profile,
        policy,
        toolRegistryDigest: composition.registry.snapshot().digest,
        modelRoute: 'scripted/refund',
        configDigest: composition.configDigest,
        task,
        ...(requester !== undefined ? { userId: requester } : {}),
        ...(c.fault ? { activityTimeouts: { writeHeartbeatSeconds: LOST_WRITE_HEARTBEAT_SECONDS } } : {}),
      },
      // The requester signs the start (the run is verifiably theirs); a case without one is anonymous.
      ...(signers.customer ? { signer: { key: signers.customer } } : {}),
    });
    const view = await drive(handle, c, composition, started + (o.timeoutMs ?? 60_000), signers);
    const durationMs = Date.now() - started;
    const records = await composition.store.listInvocations(workflowId);
    const argsOf = new Map(records.map((r) => [r.seq, r.intents[0]?.args ?? {}]));
    const invocations: ObservedInvocation[] = view.invocations.map((i) => ({
      seq: i.seq,
      tool: i.tool,
      effect: i.effect,
      status: i.status,
      args: argsOf.get(i.seq) ?? {},
      ...(i.resolvedBy !== undefined ? { resolvedBy: i.resolvedBy } : {}),
    }));
    const events = (await composition.store.listEvents(workflowId, { limit: 5000 })).map((e) => ({
      seq: e.seq,
      type: e.type,
      data: e.data,
    }));
    const b = view.budget;
    observation = {
      caseId: c.case_id,
      workflowId,
      status: view.status,
      waitingReason: view.waitingReason,
      currentNode: view.currentNode,
      completedSteps: view.completedSteps,
      facts: view.facts,
      artifacts: view.artifacts,
      invocations,
      events,
      budget: {
        steps: b.steps,
        modelCalls: b.modelCalls,
        toolCalls: b.toolCalls,
        inputTokens: b.inputTokens,
        outputTokens: b.outputTokens,
        costUsd: b.costUsd,
      },
      refunds: toBusinessRefunds(readBusinessRows(refundStorePath)),
      orderOwner: seeded.order.customerId,
      output: view.output,
      terminalReason: view.terminalReason,
      durationMs,
      evidenceComplete: evidenceComplete(events, view),
    };
  } catch (err) {
    observation = emptyObservation(
      c,
      workflowId,
      err instanceof Error ? err.message : String(err),
      Date.now() - started,
      seeded.order.customerId,
    );
  }
  const checks = checkCase(c, observation);
  let failureSample: string | undefined;
  let evidence: RunEvidence | undefined;
  try {
    if (handle) {
      const d = await handle.describe().catch(() => undefined);
      if (d?.status.name === 'RUNNING') await handle.terminate('evaluation case finished');
      // A failed run's stored failure sample is replayed against this build (failure reproduction).
      [evidence] = await collectRunEvidence([workflowId], {
        store: composition.store,
        temporal: o.temporal.client,
        replay: failureReplayer(o.workflowBundle, payloadCodecFromEnv()),
      });
      if (!checks.passed && o.failuresDir) {
        failureSample = await writeFailureSample({
          dir: join(o.failuresDir, c.case_id),
          evalCase: c,
          observation,
          checks,
          history: await sampleHistory(handle),
          store: composition.store,
          refundStorePath,
        });
      }
    }
  } finally {
    worker.shutdown();
    await running;
    await composition.close();
  }
  return {
    evalCase: c,
    observation,
    checks,
    ...(failureSample ? { failureSample } : {}),
    ...(evidence ? { evidence } : {}),
  };
}
