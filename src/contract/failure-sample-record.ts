import { z } from 'zod';
import { RunRecordVersionsSchema, type RunRecord } from './run-record.js';

/** Why a run left a failure sample: it failed, ran out of a budget, or a guardrail blocked it. */
export const FailureReasonSchema = z.enum(['failed', 'budget_exhausted', 'guardrail_blocked']);
export type FailureReason = z.infer<typeof FailureReasonSchema>;

/**
 * What the store keeps of a run that ended badly, the moment its terminal event is stored: the
 * failure (reason, status, stable code and message), the versions the run pinned, who it ran for and
 * when. A projection of the run record (so of the run's events); the history, events, invocations
 * and artifacts are read when the sample is exported (src/client/failures).
 */
export const FailureSampleRecordSchema = z.strictObject({
  runId: z.string().min(1),
  reason: FailureReasonSchema,
  status: z.string().min(1),
  /** The terminal reason's stable code, e.g. `completion.not_satisfied`, `budget.max_steps`. */
  code: z.string().min(1),
  message: z.string(),
  versions: RunRecordVersionsSchema,
  createdAt: z.string(),
  endedAt: z.string(),
  /** Sequence of the terminal event. */
  terminalSeq: z.number().int().min(0),
  budget: z.record(z.string(), z.unknown()).nullable(),
  tenantId: z.string().optional(),
  userId: z.string().optional(),
});
export type FailureSampleRecord = z.infer<typeof FailureSampleRecordSchema>;

/** The reason a run record's ending leaves a sample for, or undefined for a run that did not end badly. */
export function failureReasonOf(run: RunRecord): FailureReason | undefined {
  if (run.endedAt === null) return undefined;
  if (run.status === 'budget_exhausted') return 'budget_exhausted';
  if (run.status !== 'failed') return undefined;
  const code = run.terminalReason?.code;
  return typeof code === 'string' && code.startsWith('guardrail.') ? 'guardrail_blocked' : 'failed';
}

/**
 * The failure sample a run's record calls for when it moves from `before` to `after`: only on the
 * transition into a failed or budget-exhausted end (a record that already ended, or ended well, calls
 * for none). Pure; never throws.
 */
export function failureSampleOf(
  before: RunRecord | undefined,
  after: RunRecord,
): FailureSampleRecord | undefined {
  if (before?.endedAt) return undefined;
  const reason = failureReasonOf(after);
  if (reason === undefined || after.endedAt === null) return undefined;
  const code = after.terminalReason?.code;
  const message = after.terminalReason?.message;
  return {
    runId: after.runId,
    reason,
    status: after.status,
    code: typeof code === 'string' && code !== '' ? code : `run.${after.status}`,
    message: typeof message === 'string' ? message.slice(0, 2000) : '',
    versions: after.versions,
    createdAt: after.createdAt,
    endedAt: after.endedAt,
    terminalSeq: after.lastSeq,
    budget: after.budget,
    ...(after.tenantId !== undefined ? { tenantId: after.tenantId } : {}),
    ...(after.userId !== undefined ? { userId: after.userId } : {}),
  };
}
