import { HarnessError, type FailureCase, type FailureSample } from '../../../src/index.js';
import { ORDER_ARTIFACT_TYPE } from '../tools/order-read.js';
import { LOGISTICS_ARTIFACT_TYPE } from '../tools/logistics-read.js';
import { parseEvalCase, type EvalCase } from './eval-case.js';
import { versionedName } from '../../../src/index.js';

/** A failure sample that cannot become a refund evaluation case. */
export class SampleCaseError extends HarnessError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('eval.sample_case_invalid', message, details);
  }
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The data of the sample's first observed artifact of `type`. */
function observedData(sample: FailureSample, type: string): Record<string, unknown> | undefined {
  const a = sample.artifacts.find((x) => x.type === type && x.provenance === 'observed');
  return a ? record(a.data) : undefined;
}

/**
 * A regression case of the refund evaluation made from a failure sample of a production run (the
 * `failureCase` of the refund and showcase apps; `harness failures export --as-case`). The situation
 * is what the run observed: `initial_state` from its observed order and logistics artifacts (hours
 * since payment measured to the run's start; the phone is left out, the sample masks it), message,
 * customer, order, profile and policy from its start input, decisions and provided inputs from its
 * signals, and each tool call that failed with a code becomes an injected `tool_failures` entry. It
 * pins the observed end (`expected_terminal_status`, `expected_terminal_code`) and the nodes the
 * run completed, tagged `needs_review`: the case passes while the run fails the same way; once the
 * failure is fixed a person sets the expectations the run should meet.
 * @throws SampleCaseError when the run observed no order (nothing to seed) or has no message.
 */
export function refundFailureCase(sample: FailureSample): FailureCase {
  const order = observedData(sample, ORDER_ARTIFACT_TYPE);
  if (!order || text(order.id) === undefined)
    throw new SampleCaseError(
      `run ${sample.failure.runId} observed no order: its situation cannot be seeded`,
    );
  const logistics = observedData(sample, LOGISTICS_ARTIFACT_TYPE);
  const start = record(sample.inputs.start);
  const task = record(start.task);
  const message = text(task.message);
  if (message === undefined) throw new SampleCaseError(`run ${sample.failure.runId} has no task message`);
  const paidAt = Date.parse(String(order.paidAt));
  const hours = Number.isNaN(paidAt)
    ? undefined
    : Math.max(0, Math.round(((Date.parse(sample.inputs.startedAt) - paidAt) / 3_600_000) * 100) / 100);
  const decisions = sample.inputs.signals
    .filter((s) => s.name === 'approve' || s.name === 'reject' || s.name === 'confirm')
    .map((s) => (s.name === 'reject' ? 'reject' : 'approve'));
  const provide = Object.fromEntries(
    sample.inputs.signals
      .filter((s) => s.name === 'provideInput')
      .map((s) => [String(record(s.args).slot), String(record(s.args).value)]),
  );
  const failures = new Map<string, string>();
  for (const i of sample.invocations)
    if (i.status === 'failed_terminal' && i.errorCode && !failures.has(i.tool))
      failures.set(i.tool, i.errorCode);
  const nameVersion = (v: unknown): string | undefined => {
    const r = record(v);
    return text(r.name) && text(r.version) ? versionedName(String(r.name), String(r.version)) : undefined;
  };
  const profile = nameVersion(start.profile) ?? sample.versions.profile;
  const policy = nameVersion(start.policy) ?? sample.versions.policy;
  const completed = sample.events.events
    .filter((e) => e.type === 'step.completed')
    .map((e) => String(record(e.data).stepId));
  const id = `prod-${sample.failure.runId}`.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 100);
  const evalCase: EvalCase = parseEvalCase(
    {
      case_id: id,
      description: `Regression case from the failure sample of run ${sample.failure.runId} (${sample.failure.reason}: ${sample.failure.code}).`,
      initial_state: {
        order_status: order.status,
        ...(logistics && text(logistics.status) ? { logistics_status: logistics.status } : {}),
        ...(hours !== undefined ? { hours_since_payment: hours } : {}),
        order_id: order.id,
        ...(text(order.customerId) ? { customer_id: order.customerId } : {}),
        ...(typeof order.amountCents === 'number' ? { amount_cents: order.amountCents } : {}),
        ...(text(order.currency) ? { currency: order.currency } : {}),
      },
      user_message: message,
      expected_nodes: [...new Set(completed)],
      expected_terminal_status: sample.failure.status,
      expected_terminal_code: sample.failure.code,
      customer_id: text(task.customerId) ?? null,
      order_id: text(task.orderId) ?? null,
      ...(decisions.length ? { decisions } : {}),
      ...(Object.keys(provide).length ? { provide } : {}),
      ...(failures.size ? { tool_failures: [...failures].map(([tool, code]) => ({ tool, code })) } : {}),
      profile,
      policy,
      tags: ['regression', 'production', 'needs_review'],
    },
    `failure sample of ${sample.failure.runId}`,
  );
  return { id: evalCase.case_id, case: evalCase };
}
