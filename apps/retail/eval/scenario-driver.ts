import type { Client, WorkflowHandle } from '@temporalio/client';
import {
  isTerminal,
  signedPayload,
  startAgentRun,
  WAITING_STATUSES,
  type DecisionKey,
  type EvidenceStore,
  type RunView,
} from '../../../src/index.js';
import type { RetailComposition } from '../composition.js';
import { retailDbDigest } from '../db/retail-export.js';
import type { RetailDbTemplate } from '../db/retail-template.js';
import { checkScenario, type ScenarioChecks, type ScenarioObservation } from './scenario-checks.js';
import { benchmarkName } from './transcript.js';
import type { RetailScenario } from './variants.js';

/** The routed profile and policy every scenario runs under. */
export const RETAIL_PROFILE = { name: 'retail.agent', version: 'v2' } as const;
export const RETAIL_POLICY = { name: 'retail.policy', version: 'v2' } as const;

/** The model route of a scenario's gold model: `gold/<taskId>/<variant>`. */
export function goldRoute(s: RetailScenario): string {
  return `gold/${s.id}`;
}

/** What every scenario of one evaluation shares: the server, the worker's composition, the template. */
export interface ScenarioContext {
  readonly client: Client;
  readonly taskQueue: string;
  readonly composition: RetailComposition;
  readonly template: RetailDbTemplate;
  /** Customer keys by benchmark user id. */
  readonly customers: ReadonlyMap<string, DecisionKey>;
  /** Relays the customer's answer at an approval wait (see `RetailEvalSigners`). */
  readonly approver: DecisionKey;
  /** Unique per evaluation: prefixes workflow ids. */
  readonly runTag: string;
  readonly initialDigest: string;
  /** The digest of the database the scenario expects (its effect calls applied directly). */
  readonly expectedDigest: (s: RetailScenario) => Promise<string>;
  /** Per scenario; default 60 s. */
  readonly timeoutMs?: number;
}

/** One scenario's outcome. */
export interface ScenarioRun {
  readonly scenario: RetailScenario;
  readonly observation: ScenarioObservation;
  readonly checks: ScenarioChecks;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether the view waits for the run's customer (a `confirm.user.*` confirmation), not for an approver. */
function customerWait(v: RunView): boolean {
  const obligations = v.pendingAction?.obligations ?? [];
  return (
    v.humanRequest?.decisionType === 'customer_confirmation' ||
    obligations.some((o) => o.startsWith('confirm.user.'))
  );
}

/**
 * Drive the run: answer every confirmation with the scenario's decision: at a customer wait signed by
 * the customer (`confirm` / `reject`); at an approval wait (the policy's `require_confirmation` without
 * a `confirm.user.*` obligation) the approver relays the customer's answer (`approve` / `reject`).
 * Stop at a terminal status or a wait the scenario does not answer.
 *
 * @returns the last view and the number of confirmations answered.
 * @throws Error on timeout, or when the workflow closed without a readable state.
 */
export async function driveRun(
  handle: WorkflowHandle,
  s: RetailScenario,
  keys: { readonly customer: DecisionKey | undefined; readonly approver: DecisionKey },
  deadline: number,
): Promise<{ view: RunView; confirmations: number }> {
  let handled = -1;
  let confirmations = 0;
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
      return { view: v, confirmations };
    }
    const pending = v.pendingAction;
    if (WAITING_STATUSES.includes(v.status) && pending && v.stateVersion !== handled) {
      if (pending.kind !== 'confirmation' && pending.kind !== 'human') return { view: v, confirmations };
      const fields = s.decision === 'approve' ? {} : { reason: 'the customer says no' };
      if (customerWait(v)) {
        if (keys.customer === undefined) return { view: v, confirmations };
        const name = s.decision === 'reject' ? 'reject' : 'confirm';
        await handle.signal(name, signedPayload(keys.customer, v, name, fields, pending));
      } else {
        const name = s.decision === 'reject' ? 'reject' : 'approve';
        await handle.signal(name, signedPayload(keys.approver, v, name, fields, pending));
      }
      confirmations += 1;
      handled = v.stateVersion;
    }
    await sleep(100);
  }
}

/**
 * What a driven run shows: its status, its tool calls (the view's invocations with their intents'
 * arguments), its stored events, the scenario's digests and how long it took (until now: before the
 * store is read). Throws the store's errors.
 */
export async function observeScenario(
  store: EvidenceStore,
  view: RunView,
  run: {
    readonly workflowId: string;
    readonly confirmations: number;
    readonly started: number;
    readonly digests: Pick<ScenarioObservation, 'initialDigest' | 'expectedDigest' | 'finalDigest'>;
  },
): Promise<ScenarioObservation> {
  const durationMs = Date.now() - run.started;
  const records = await store.listInvocations(run.workflowId);
  const argsOf = new Map(records.map((r) => [r.seq, r.intents[0]?.args ?? {}]));
  const calls = view.invocations.map((i) => ({
    seq: i.seq,
    name: benchmarkName(i.tool),
    args: argsOf.get(i.seq) ?? {},
    status: i.status,
  }));
  const events = (await store.listEvents(run.workflowId, { limit: 5000 })).map((e) => ({
    type: e.type,
    data: e.data,
  }));
  return {
    workflowId: run.workflowId,
    status: view.status,
    terminalCode: view.terminalReason?.code ?? null,
    calls,
    events,
    ...run.digests,
    confirmations: run.confirmations,
    durationMs,
  };
}

export function errorObservation(
  workflowId: string,
  error: string,
  started: number,
  digests: Pick<ScenarioObservation, 'initialDigest' | 'expectedDigest' | 'finalDigest'>,
): ScenarioObservation {
  return {
    workflowId,
    status: 'error',
    terminalCode: null,
    calls: [],
    events: [],
    ...digests,
    confirmations: 0,
    durationMs: Date.now() - started,
    error,
  };
}

/**
 * Run one scenario as a real run: a fresh copy of the template bound to the run's workflow id, the
 * routed profile on the scenario's gold route with the task `{ message, taskId }`, started signed by
 * the task's customer, driven to its end; then compare the final database with the expected one.
 *
 * Never throws for a run that misbehaves (that is a failed scenario with status `error`).
 */
export async function runScenario(s: RetailScenario, ctx: ScenarioContext): Promise<ScenarioRun> {
  const workflowId = `reval-${ctx.runTag}-${s.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const db = ctx.template.fresh();
  ctx.composition.dbs.bind(workflowId, db);
  const started = Date.now();
  const key = s.userId === undefined ? undefined : ctx.customers.get(s.userId);
  const expectedDigest = await ctx.expectedDigest(s);
  let observation: ScenarioObservation;
  let handle: WorkflowHandle | undefined;
  try {
    handle = await startAgentRun(ctx.client, {
      taskQueue: ctx.taskQueue,
      workflowId,
      input: {
        schemaVersion: 1,
        profile: RETAIL_PROFILE,
        policy: RETAIL_POLICY,
        toolRegistryDigest: ctx.composition.registry.snapshot().digest,
        modelRoute: goldRoute(s),
        configDigest: ctx.composition.configDigest,
        task: { message: s.message, taskId: s.taskId },
        // τ²'s gold re-reads an order up to three times (task 41 reads #W4082615 thrice): the
        // duplicate-call guard allows three identical calls instead of its default two.
        budget: { maxDuplicateCalls: 3 },
        ...(s.userId !== undefined ? { userId: s.userId } : {}),
      },
      ...(key ? { signer: { key } } : {}),
    });
    const { view, confirmations } = await driveRun(
      handle,
      s,
      { customer: key, approver: ctx.approver },
      started + (ctx.timeoutMs ?? 60_000),
    );
    observation = await observeScenario(ctx.composition.store, view, {
      workflowId,
      confirmations,
      started,
      digests: { initialDigest: ctx.initialDigest, expectedDigest, finalDigest: retailDbDigest(db) },
    });
  } catch (err) {
    observation = errorObservation(workflowId, err instanceof Error ? err.message : String(err), started, {
      initialDigest: ctx.initialDigest,
      expectedDigest,
      finalDigest: retailDbDigest(db),
    });
  } finally {
    if (handle) {
      const d = await handle.describe().catch(() => undefined);
      if (d?.status.name === 'RUNNING')
        await handle.terminate('evaluation scenario finished').catch(() => undefined);
    }
    ctx.composition.dbs.release(workflowId);
    db.close();
  }
  return { scenario: s, observation, checks: checkScenario(s, observation) };
}
