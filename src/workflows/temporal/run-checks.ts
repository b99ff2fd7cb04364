import { CarriedFactVersionsSchema } from '../runner/fact-versions.js';
import { ApplicationFailure } from '@temporalio/workflow';
import type { AgentEvent } from '../../contract/agent-event.js';
import {
  ResolvedBundlesSchema,
  BUNDLE_ERROR_CODES,
  type BundlePin,
  type ResolvedBundles,
} from '../../contract/bundles.js';
import { ModelRoutePlanSchema, type ModelRoutePlan } from '../../contract/model-routes.js';
import { AgentRunInputSchema, describeInputIssues, type AgentRunInput } from '../../contract/run-input.js';
import { AuthzCarriedSchema, type AuthzCarried } from '../authz/decision-authority.js';
import { carriedEventsProblem } from '../runner/carried-events.js';
import { CarriedWaitSchema, type CarriedWait } from '../runner/carried-wait.js';
import { RunConfigPinSchema, type RunConfigPin } from '../../contract/run-config.js';

/*
 * What a run takes from outside its code (its input, what the worker's snapshot pinned, what the
 * previous generation carried), checked like any input before the run uses it.
 */

/**
 * Fail the workflow at once.
 * @throws ApplicationFailure of type `code` (non-retryable), always.
 */
export function fail(code: string, message: string): never {
  throw ApplicationFailure.create({ type: code, message, nonRetryable: true });
}

/**
 * The run's input, parsed.
 * @throws ApplicationFailure `run.invalid_input` (non-retryable) when it does not match the schema.
 */
export function parseInput(raw: unknown): AgentRunInput {
  const parsed = AgentRunInputSchema.safeParse(raw);
  if (!parsed.success)
    fail('run.invalid_input', `invalid agentRun input: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * A carried wait, checked like any input: bounded, well-formed.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) when it is not.
 */
export function checkedWait(value: unknown): CarriedWait {
  const parsed = CarriedWaitSchema.safeParse(value);
  if (!parsed.success) fail('run.state_invalid', `carried wait: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Carried events, checked like any input: bounded, of this run, numbered before the carried state's
 * next sequence number.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) when they are not.
 */
export function checkedEvents(value: unknown, runId: string, nextEventSeq: number): AgentEvent[] {
  const problem = carriedEventsProblem(value, runId, nextEventSeq);
  if (problem !== undefined) fail('run.state_invalid', `carried events: ${problem}`);
  return value as AgentEvent[];
}

/**
 * Carried decision state, checked like any input: bounded, well-formed.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) when it is not.
 */
export function checkedAuthz(value: unknown): AuthzCarried {
  const parsed = AuthzCarriedSchema.safeParse(value);
  if (!parsed.success)
    fail('run.state_invalid', `carried decision state: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * The model routes of a run, checked (bounded, closed): from the worker's snapshot at the first start,
 * from the carried envelope after continue-as-new.
 * @throws ApplicationFailure `run.model_routes_invalid` (non-retryable) when they do not match the schema.
 */
export function checkedModelRoutes(value: unknown): ModelRoutePlan | undefined {
  if (value === undefined) return undefined;
  const parsed = ModelRoutePlanSchema.safeParse(value);
  if (!parsed.success)
    fail('run.model_routes_invalid', `pinned model routes: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * The bundles of a run, checked (bounded, closed): from the worker's snapshot. A run whose first
 * generation pinned bundles must get them resolved in every later one.
 * @throws ApplicationFailure `run.bundles_invalid` (non-retryable) when they do not match the schema;
 *   Error `bundle.not_found` (a workflow task failure) when a carried pin came back unresolved.
 */
export function checkedBundles(
  value: unknown,
  carriedPin: BundlePin | undefined,
): ResolvedBundles | undefined {
  if (value === undefined) {
    if (carriedPin !== undefined)
      throw new Error(`${BUNDLE_ERROR_CODES.notFound}: this worker did not resolve the run's pinned bundles`);
    return undefined;
  }
  const parsed = ResolvedBundlesSchema.safeParse(value);
  if (!parsed.success) fail('run.bundles_invalid', `pinned bundles: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Carried fact versions, checked like any input: bounded, well-formed.
 * @throws ApplicationFailure `run.state_invalid` (non-retryable) when they are not.
 */
export function checkedFactVersions(value: unknown): Record<string, number> {
  const parsed = CarriedFactVersionsSchema.safeParse(value);
  if (!parsed.success)
    fail('run.state_invalid', `carried fact versions: ${describeInputIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * A config pin, carried or from the start's snapshot, checked like any input: bounded, well-formed.
 * Undefined when there is none (a run without the config pin, or a generation of a build before it).
 * @throws ApplicationFailure (non-retryable) `run.state_invalid` for a carried pin that is not
 *   well-formed, `run.config_pin_invalid` for a snapshot's.
 */
export function checkedConfigPin(
  value: unknown,
  from: 'carried' | 'snapshot' = 'carried',
): RunConfigPin | undefined {
  if (value === undefined) return undefined;
  const parsed = RunConfigPinSchema.safeParse(value);
  if (!parsed.success)
    fail(
      from === 'carried' ? 'run.state_invalid' : 'run.config_pin_invalid',
      `${from} config pin: ${describeInputIssues(parsed.error)}`,
    );
  return parsed.data;
}
