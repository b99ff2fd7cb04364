import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { HarnessError } from '../../../src/index.js';
import type { EvidenceStore } from '../../../src/index.js';
import { readBusinessRows, type BusinessRows } from './business-rows.js';
import type { CaseChecks } from './case-checks.js';
import type { CaseObservation } from './case-observation.js';
import { parseEvalCase, type EvalCase } from './eval-case.js';
import { versionedName } from '../../../src/index.js';

type History = temporal.api.history.v1.IHistory;

/** File names inside a failure sample folder. */
export const SAMPLE_FILES = {
  history: 'history.json',
  evidence: 'evidence.json',
  business: 'business.json',
  evalCase: 'case.json',
  result: 'result.json',
} as const;

export interface FailureSampleInput {
  readonly dir: string;
  readonly evalCase?: EvalCase;
  readonly observation: CaseObservation;
  readonly checks?: CaseChecks;
  readonly history: History;
  readonly store: EvidenceStore;
  readonly refundStorePath: string;
}

/** A failure sample read back from its folder. */
export interface FailureSample {
  readonly dir: string;
  readonly workflowId: string;
  readonly history: History;
  readonly evidence: { events: unknown[]; invocations: unknown[]; artifacts: unknown[] };
  readonly business: BusinessRows;
  readonly evalCase?: EvalCase;
  readonly result?: { observation: CaseObservation; checks?: CaseChecks };
}

/** A failure sample folder that cannot be read or turned into a case. */
export class FailureSampleError extends HarnessError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('eval.failure_sample_invalid', message, details);
  }
}

const writeJson = (file: string, value: unknown): void =>
  writeFileSync(file, `${JSON.stringify(value, null, 1)}\n`);

/**
 * Write a failed run as a failure sample: its Temporal history (the JSON of `temporal workflow show
 * --output json`), the evidence-store rows of the run (events, invocations with intents and results,
 * artifacts), the business-store rows (orders, logistics, refunds), the case and the checks.
 * @returns the folder. @throws the file system's and the stores' errors.
 */
export async function writeFailureSample(s: FailureSampleInput): Promise<string> {
  mkdirSync(s.dir, { recursive: true });
  const runId = s.observation.workflowId;
  writeJson(join(s.dir, SAMPLE_FILES.history), JSON.parse(historyToJSON(s.history)));
  writeJson(join(s.dir, SAMPLE_FILES.evidence), {
    runId,
    events: await s.store.listEvents(runId, { limit: 5000 }),
    invocations: await s.store.listInvocations(runId),
    artifacts: await s.store.listArtifacts(runId),
  });
  writeJson(join(s.dir, SAMPLE_FILES.business), readBusinessRows(s.refundStorePath));
  if (s.evalCase) writeJson(join(s.dir, SAMPLE_FILES.evalCase), s.evalCase);
  writeJson(join(s.dir, SAMPLE_FILES.result), { observation: s.observation, checks: s.checks });
  return s.dir;
}

function readJson(dir: string, name: string, required: boolean): unknown {
  try {
    return JSON.parse(readFileSync(join(dir, name), 'utf8'));
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new FailureSampleError(`${join(dir, name)}: ${(err as Error).message}`, { dir, file: name });
  }
}

/** Read a failure sample folder. @throws FailureSampleError when history, evidence or business rows are missing or invalid. */
export function loadFailureSample(dir: string): FailureSample {
  const history = historyFromJSON(readJson(dir, SAMPLE_FILES.history, true));
  const evidence = readJson(dir, SAMPLE_FILES.evidence, true) as FailureSample['evidence'] & {
    runId?: string;
  };
  const business = readJson(dir, SAMPLE_FILES.business, true) as BusinessRows;
  const rawCase = readJson(dir, SAMPLE_FILES.evalCase, false);
  const result = readJson(dir, SAMPLE_FILES.result, false) as FailureSample['result'];
  const workflowId = evidence.runId ?? result?.observation.workflowId ?? 'failure-sample';
  return {
    dir,
    workflowId,
    history,
    evidence,
    business,
    ...(rawCase !== undefined ? { evalCase: parseEvalCase(rawCase, join(dir, SAMPLE_FILES.evalCase)) } : {}),
    ...(result !== undefined ? { result } : {}),
  };
}

/**
 * Replay the sample's history against `workflowBundle` (this build) without a server.
 * @throws DeterminismViolationError when this build does not reproduce the recorded run, or the
 *   replay's other errors.
 */
export async function replayFailureSample(
  dir: string,
  workflowBundle: WorkflowBundleWithSourceMap | { codePath: string },
): Promise<void> {
  const sample = loadFailureSample(dir);
  await Worker.runReplayHistory(
    { workflowBundle, replayName: `failure-sample:${sample.workflowId}` },
    sample.history,
    sample.workflowId,
  );
}

interface StartInput {
  task?: { message?: string; customerId?: string; orderId?: string };
  policy?: { name: string; version: string };
  profile?: { name: string; version: string };
}

function startInput(history: History): StartInput {
  const first = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payload = first?.input?.payloads?.[0];
  if (!payload) throw new FailureSampleError('the history has no workflow start input');
  return defaultPayloadConverter.fromPayload<StartInput>(payload);
}

function signalsOf(history: History): { name: string; payload: Record<string, unknown> }[] {
  return (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a): a is NonNullable<typeof a> => !!a)
    .map((a) => ({
      name: a.signalName ?? '',
      payload: a.input?.payloads?.[0]
        ? defaultPayloadConverter.fromPayload<Record<string, unknown>>(a.input.payloads[0])
        : {},
    }));
}

function startTime(history: History): Date {
  const t = history.events?.[0]?.eventTime;
  const seconds = Number(t?.seconds ?? 0);
  return seconds > 0 ? new Date(seconds * 1000 + Math.floor((t?.nanos ?? 0) / 1e6)) : new Date();
}

/**
 * Turn a failure sample into a new evaluation case (a regression case). The situation comes from the
 * recorded data, so it works for samples of any run, not only eval runs: `initial_state` from the
 * business rows (the order, its logistics, hours between payment and the run's start), the message,
 * customer, order and policy from the workflow's start input, decisions and inputs from the signals in
 * the history. The expectations are the original case's when the sample has one (the run failed
 * them); otherwise the observed outcome, tagged `needs_review` (a person must confirm it is right).
 * @throws FailureSampleError when the sample is unreadable or has no order row.
 */
export function failureSampleToCase(dir: string, options: { caseId?: string } = {}): EvalCase {
  const sample = loadFailureSample(dir);
  const order = sample.business.orders[0];
  if (!order) throw new FailureSampleError(`${dir}: the business rows hold no order`, { dir });
  const logistics = sample.business.logistics.find((l) => l.order_id === order.id);
  const start = startInput(sample.history);
  const paidAt = Date.parse(String(order.paid_at));
  const hours = Math.max(
    0,
    Math.round(((startTime(sample.history).getTime() - paidAt) / 3_600_000) * 100) / 100,
  );
  const signals = signalsOf(sample.history);
  const decisionSignals = signals.filter((s) => s.name === 'approve' || s.name === 'reject');
  // A signal repeated for the same action is a duplicate request, not a second decision.
  const distinct = decisionSignals.filter(
    (s, i) => i === 0 || JSON.stringify(s) !== JSON.stringify(decisionSignals[i - 1]),
  );
  const decisions = distinct.map((s) => s.name as 'approve' | 'reject');
  const provide = Object.fromEntries(
    signals
      .filter((s) => s.name === 'provideInput')
      .map((s) => [String(s.payload.slot), String(s.payload.value)]),
  );
  const original = sample.evalCase;
  const observed = sample.result?.observation;
  const expectations = original
    ? {
        expected_required_facts: original.expected_required_facts,
        expected_nodes: original.expected_nodes,
        forbidden_nodes: original.forbidden_nodes,
        expected_terminal_status: original.expected_terminal_status,
        ...(original.expected_tools ? { expected_tools: original.expected_tools } : {}),
      }
    : {
        expected_required_facts: [],
        expected_nodes: observed ? [...observed.completedSteps] : [],
        forbidden_nodes: [],
        expected_terminal_status: observed && observed.status !== 'error' ? observed.status : 'succeeded',
      };
  const caseId = options.caseId ?? `${original?.case_id ?? sample.workflowId}-regression`;
  return parseEvalCase(
    {
      case_id: caseId.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 100),
      description: `Regression case from failure sample ${dir}${original ? ` of ${original.case_id}` : ''}.`,
      initial_state: {
        order_status: order.status,
        ...(logistics ? { logistics_status: logistics.status } : {}),
        hours_since_payment: hours,
        order_id: order.id,
        customer_id: order.customer_id,
        amount_cents: order.amount_cents,
        currency: order.currency,
        phone: order.phone,
      },
      user_message: start.task?.message ?? '',
      ...expectations,
      customer_id: start.task?.customerId ?? null,
      order_id: start.task?.orderId ?? null,
      ...(decisions.length ? { decisions } : {}),
      ...(distinct.length < decisionSignals.length ? { duplicate_signals: true } : {}),
      ...(Object.keys(provide).length ? { provide } : {}),
      ...(start.policy ? { policy: versionedName(start.policy.name, start.policy.version) } : {}),
      ...(start.profile ? { profile: versionedName(start.profile.name, start.profile.version) } : {}),
      tags: original ? ['regression'] : ['regression', 'needs_review'],
    },
    `failure sample ${dir}`,
  );
}

/** Write a case as `<dir>/<case_id>.json`. @returns the file path. */
export function writeEvalCase(evalCase: EvalCase, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${evalCase.case_id}.json`);
  writeJson(file, evalCase);
  return file;
}
