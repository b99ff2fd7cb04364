import { z } from 'zod';
import { GuardrailFindingRecordSchema, MAX_FINDING_RECORDS } from '../guardrails/finding-record.js';
import { MAX_OBLIGATIONS, mergeObligations } from '../guardrails/run-hooks.js';
import type { RunState } from '../runner/run-state.js';
import type { MigrationStep } from './migration-registry.js';
import { runStateV1Fields, RunStateV1Schema, type RunStateV1 } from './run-state-v1.js';

/**
 * Run state version 2 (the runner's RunState, src/workflows/runner/run-state.ts) = version 1 plus the fields
 * the guardrails need to survive continue-as-new:
 * - `obligations`: the policy obligations in force for the run (`mask.phone`,
 *   `limit.refund_amount=5000`), distinct, in first-seen order; the output guardrail applies them;
 * - `guardrailFindings`: the most recent guardrail findings (at most {@link MAX_FINDING_RECORDS});
 * - `outputRetries`: compositions retried after the output guardrail blocked them.
 */
export const RunStateV2Schema = z.lazy(() =>
  z.strictObject({
    schemaVersion: z.literal(2),
    ...runStateV1Fields(),
    obligations: z.array(z.string().min(1).max(200)).max(MAX_OBLIGATIONS),
    guardrailFindings: z.array(GuardrailFindingRecordSchema).max(MAX_FINDING_RECORDS),
    outputRetries: z.number().int().nonnegative(),
  }),
);
export type RunStateV2 = z.output<typeof RunStateV2Schema>;

/**
 * `run_state@1->2`: adds `obligations`, `guardrailFindings` and `outputRetries`. Obligations of a decision still
 * waiting for confirmation (`pendingAction.obligations`) are carried over; obligations of earlier
 * decisions were not recorded in version 1 and cannot be recovered, so they start empty (the
 * runner adds them again at its next policy decision). `guardrailFindings` starts empty and
 * `outputRetries` at 0 (version 1 never retried a composition).
 */
export const runStateV1ToV2: MigrationStep<RunStateV1, RunStateV2> = {
  shape: 'run_state',
  from: 1,
  to: 2,
  input: RunStateV1Schema,
  output: RunStateV2Schema,
  description: 'adds obligations (from the pending action), guardrailFindings (empty), outputRetries (0)',
  migrate: (v) => ({
    ...v,
    schemaVersion: 2,
    obligations: mergeObligations([], v.pendingAction?.obligations ?? []),
    guardrailFindings: [],
    outputRetries: 0,
  }),
};

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * Compile-time guard: this schema and the runner's RunState describe the same shape, with the same
 * keys (an added optional field counts too: the schemas are strict, so a state carrying it would be
 * refused at the next migration). A change of the runner's state needs a new version and a step.
 */
export const RUN_STATE_V2_MATCHES_RUNNER: [
  Same<RunStateV2, RunState>,
  Same<keyof RunStateV2, keyof RunState>,
] = [true, true];
