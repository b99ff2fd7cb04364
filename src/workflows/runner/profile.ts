import type { CompletionContract } from '../completion/index.js';
import { HarnessError } from '../../contract/errors.js';
import type { RunContext } from './run-context.js';
import type { ActionDescriber } from './action-summary.js';
import type { RunDeliveredWrite } from '../../contract/run-view.js';

/** What a profile is told when the output guardrail blocked its final output (no output text in it). */
export interface BlockedOutputFeedback {
  /** Which retry this is: 1 for the first. */
  readonly attempt: number;
  /** The guardrail's reason codes (e.g. `guardrail.output.unsupported_claim`). */
  readonly reasonCodes: readonly string[];
  /** Rule ids and JSON pointers of the blocking findings (e.g. `claim.refund_created` at `/message`). */
  readonly findings: readonly { readonly code: string; readonly ruleId: string; readonly path: string }[];
}

/** What a profile's run returns: the final output it interpreted (not yet judged). */
export interface ProfileResult {
  readonly output: unknown;
  /**
   * Compose the output again after the output guardrail blocked it, with the block's feedback in
   * context. Used only when the profile's {@link Profile.onBlockedOutput} is `retry`.
   */
  readonly recompose?: (feedback: BlockedOutputFeedback) => Promise<ProfileResult>;
}

/** A write that took effect before a budget ended the run. */
export type DeliveredWrite = RunDeliveredWrite;

/**
 * What a profile's {@link Profile.deliveredAnswer} is told: the budget that ended the run (its
 * terminal reason), the writes that took effect, the run's task, and the profile's last checkpoint
 * (a graph profile's `{ state, node }`; undefined before the first).
 */
export interface DeliveredOutcome {
  readonly reason: { readonly code: string; readonly message: string };
  readonly writes: readonly DeliveredWrite[];
  readonly task: Readonly<Record<string, unknown>>;
  readonly resume: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Compose the customer's answer for a run a budget ended after writes took effect: pure, synchronous,
 * deterministic (it runs in the workflow sandbox, after the budget: no model or tool call). It should
 * say what was done and what was not. An answer that throws, is `null`/`undefined` or serializes to
 * more than 8000 characters is replaced by the runner's summary (docs/runner.md, "Delivered outcome").
 */
export type DeliveredAnswer = (outcome: DeliveredOutcome) => unknown;

/** Most retries a profile may ask for after a blocked output. */
export const MAX_OUTPUT_RETRIES = 5;

/**
 * What the runner does when the output guardrail blocks a profile's final output:
 * - `fail` (the default): the run ends `failed` with `guardrail.output_blocked`;
 * - `retry`: the profile composes again with the block's reason codes in context, at most
 *   `maxRetries` times (1..{@link MAX_OUTPUT_RETRIES}); each retry is a step and its model calls count
 *   against the run's budgets; when retries run out the run ends `failed` with `guardrail.output_blocked`.
 */
export type BlockedOutputChoice =
  { readonly action: 'fail' } | { readonly action: 'retry'; readonly maxRetries: number };

/**
 * A profile owns prompt preparation and interpretation of non-tool model output (seed 000 §3). It is
 * registered by exact name and version in the trusted workflow composition; runs pin it.
 * Profile code runs in the workflow sandbox: deterministic, no I/O (use the RunContext).
 */
export interface Profile {
  readonly name: string;
  readonly version: string;
  readonly kind: 'goal' | 'graph';
  readonly completion: CompletionContract;
  /** Tool names (or `name@version`) this profile may use; the policy narrows further. */
  readonly tools: readonly string[];
  /** The policies this profile may run under; a run that names none gets the default. */
  readonly policies: ProfilePolicies;
  /** When the output guardrail blocks the final output; default `{ action: 'fail' }`. */
  readonly onBlockedOutput?: BlockedOutputChoice;
  /**
   * How a person asked to confirm or approve one of this profile's tool calls reads it (the human
   * request's summary); default `tool@version {arguments}`. See {@link ActionDescriber}: pure,
   * secret-masked, cut to 500 characters, the default when it throws. A change to it shows in the waits
   * of runs in flight; give the profile a new version for a new phrasing, as for new instructions.
   */
  readonly describeAction?: ActionDescriber;
  /**
   * The answer of a run a budget ended after its writes took effect (runs since
   * `agent-run-delivered-outcome-v1`); default: the runner's summary of the applied writes.
   */
  readonly deliveredAnswer?: DeliveredAnswer;
  /**
   * Build and check what the profile builds on first use (a graph profile's graph and state schema),
   * throwing what that throws. `composeAgentRun` (the worker process at start, `harness start`) calls
   * it for every profile; a run for its own profile before anything else. Absent: nothing deferred.
   */
  check?(): void;
  run(ctx: RunContext): Promise<ProfileResult>;
}

/**
 * The policy binding of a profile, part of the trusted composition (docs/authorization.md): a caller
 * cannot choose a policy the profile does not list. Policies are named `name@vN`.
 */
export interface ProfilePolicies {
  /** The policy of a run that names none. */
  readonly default: string;
  /** Further policies a starter may name (the default is always allowed). */
  readonly allowed?: readonly string[];
}

/** What every kind of profile takes from its definition as it is. */
export type ProfileHeader = Pick<
  Profile,
  | 'name'
  | 'version'
  | 'completion'
  | 'tools'
  | 'policies'
  | 'onBlockedOutput'
  | 'describeAction'
  | 'deliveredAnswer'
>;

/**
 * The fields of a profile of `kind` copied from its definition (optional ones only when set). Checks
 * nothing (see {@link checkBlockedOutputChoice}); never throws.
 */
export function profileHeader(config: ProfileHeader, kind: Profile['kind']): Omit<Profile, 'run' | 'check'> {
  return {
    name: config.name,
    version: config.version,
    kind,
    completion: config.completion,
    tools: config.tools,
    policies: config.policies,
    ...(config.onBlockedOutput ? { onBlockedOutput: config.onBlockedOutput } : {}),
    ...(config.describeAction ? { describeAction: config.describeAction } : {}),
    ...(config.deliveredAnswer ? { deliveredAnswer: config.deliveredAnswer } : {}),
  };
}

/** Every policy (`name@vN`) a profile may run under: its default first. */
export function allowedPolicies(profile: Pick<Profile, 'policies'>): readonly string[] {
  return [
    profile.policies.default,
    ...(profile.policies.allowed ?? []).filter((p) => p !== profile.policies.default),
  ];
}

/**
 * Check a profile's {@link BlockedOutputChoice} at composition time.
 * @throws ProfileConfigError (`profile.invalid`) when `maxRetries` is not an
 *   integer in 1..{@link MAX_OUTPUT_RETRIES}.
 */
export function checkBlockedOutputChoice(profile: string, choice: BlockedOutputChoice | undefined): void {
  if (choice?.action !== 'retry') return;
  const n = choice.maxRetries;
  if (!Number.isInteger(n) || n < 1 || n > MAX_OUTPUT_RETRIES) {
    throw new ProfileConfigError(
      `profile ${profile}: onBlockedOutput.maxRetries must be an integer in 1..${MAX_OUTPUT_RETRIES}`,
    );
  }
}

/** A profile definition that cannot be used (code `profile.invalid`). */
export class ProfileConfigError extends HarnessError {
  constructor(message: string) {
    super('profile.invalid', message);
  }
}
