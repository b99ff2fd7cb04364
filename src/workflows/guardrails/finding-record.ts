import { z } from 'zod';
import type { GuardrailFinding } from './finding.js';

/** Most finding records a run state keeps (the oldest are dropped; events keep them all). */
export const MAX_FINDING_RECORDS = 200;

/**
 * A guardrail finding as the run state records it (run state v2 `guardrailFindings`). Built on first
 * use (see builtOnFirstUse).
 */
export const GuardrailFindingRecordSchema = z.lazy(() =>
  z.strictObject({
    /** Which guardrail: `input` or `output`. */
    stage: z.enum(['input', 'output']),
    /** What was checked: `task`, `provideInput:<slot>`, `signal:<name>`, `output`. */
    source: z.string().min(1).max(200),
    code: z.string().min(1),
    ruleId: z.string().min(1),
    path: z.string(),
    span: z
      .strictObject({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() })
      .optional(),
    action: z.enum(['block', 'flag', 'rewrite']),
    /** ISO time of the check (the workflow clock, passed in). */
    at: z.string().min(1),
  }),
);
export type GuardrailFindingRecord = z.output<typeof GuardrailFindingRecordSchema>;

/**
 * `existing` followed by records of `findings`, keeping the newest {@link MAX_FINDING_RECORDS}.
 * Returns a new array; `at` is an ISO time the caller takes from the workflow clock. Never throws.
 */
export function appendFindingRecords(
  existing: readonly GuardrailFindingRecord[],
  stage: GuardrailFindingRecord['stage'],
  source: string,
  at: string,
  findings: readonly GuardrailFinding[],
): GuardrailFindingRecord[] {
  const added = findings.map((f) => ({
    stage,
    source,
    code: f.code,
    ruleId: f.ruleId,
    path: f.path,
    ...(f.span ? { span: { start: f.span.start, end: f.span.end } } : {}),
    action: f.action,
    at,
  }));
  return [...existing, ...added].slice(-MAX_FINDING_RECORDS);
}
