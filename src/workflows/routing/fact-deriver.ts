import type { PolicyFacts } from '../policy/policy.js';

/**
 * How a routed profile turns trusted tool results into verified facts (issue 38): an app's pure
 * function over one settled tool call, run in the workflow sandbox after the call's observation.
 * Facts stand only on tool results (the executor's output, recorded as an `observed` artifact), never
 * on the model's words: the profile records each fact with `RunContext.recordFact`, citing the call's
 * artifact, and withdraws facts with `RunContext.withdrawFact`.
 */

/** One settled tool call as a fact deriver reads it. */
export interface SettledToolCall {
  /** The tool's registry name (`retail.get_order_details`) and version (`v1`). */
  readonly tool: string;
  readonly version: string;
  /** The schema-validated arguments the call ran with. */
  readonly args: Readonly<Record<string, unknown>>;
  /** `succeeded`: the executor returned `output`; anything else: no fact may be derived from it. */
  readonly status: string;
  /** The executor's output (JSON), when it succeeded. */
  readonly output?: unknown;
}

/** What a deriver asks for: facts to withdraw first, then facts to set. */
export interface FactUpdate {
  /** Facts no longer true (e.g. the facts of the previous order when another order is read). */
  readonly withdraw?: readonly string[];
  /** Facts verified by this call's result: lowercase dotted names, primitive values. */
  readonly set?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * Pure, deterministic, no I/O: the update of the run's verified facts after `call`, given the facts
 * held before it. A throw is a defect of the app: the routed profile records no fact for that call
 * (and emits `fact.rejected` with `fact.deriver_failed`).
 */
export type FactDeriver = (call: SettledToolCall, facts: PolicyFacts) => FactUpdate;
