import type { CompletionContract } from '../completion/index.js';
import type { BlockedOutputChoice, DeliveredAnswer, ProfilePolicies } from './profile.js';
import type { ActionDescriber } from './action-summary.js';
import type { ConfirmRequest, RunContext } from './run-context.js';
import type { NodeRetryPolicy } from './graph-node-retry.js';
import type { GraphStateSchema } from './graph-state-patch.js';
import type { NodeContext } from './graph-node-context.js';

/** Outcome of one node (seed 004 NodeResult). */
export interface NodeResult<S> {
  readonly outcome:
    'completed' | 'retry' | 'pause_for_input' | 'pause_for_confirmation' | 'pause_for_human' | 'failed';
  readonly statePatch?: Partial<S>;
  readonly nextNode?: string;
  readonly retryAfterSeconds?: number;
  /** For pause_for_confirmation / pause_for_human: what to ask. */
  readonly confirmation?: ConfirmRequest;
  /**
   * `pause_for_input`: the slot and prompt; `default`, the value taken when the input request expires
   * unanswered (without one, an expired input request ends the run `failed`, `input.expired`).
   */
  readonly input?: { readonly slot: string; readonly prompt: string; readonly default?: string };
  /** For failed: a stable code and message. */
  readonly failure?: { readonly code: string; readonly message: string };
  /** For a terminal node: the run's output. */
  readonly output?: unknown;
}

/** A route decision (seed 004): which capabilities a node may use and which it may not, and why. */
export interface RouteDecision {
  readonly route: string;
  readonly candidateCapabilities: readonly string[];
  readonly excludedCapabilities: readonly string[];
  readonly reasonCode: string;
}

export interface GraphNode<S> {
  readonly id: string;
  /** Tools this node may call; every other tool of the profile is excluded here. */
  readonly capabilities?: readonly string[];
  /**
   * How often the node may answer `retry` per visit and how long the run waits in between (a durable
   * timer); default `DEFAULT_NODE_RETRY` (3 attempts). A `retry` on the last attempt fails the node with
   * `graph.attempts_exhausted`.
   */
  readonly retry?: NodeRetryPolicy;
  /**
   * How long one attempt of the node may take, in seconds (at most 7 days), counted from when its
   * handler is called and bounded by the run's deadline. On runs since `agent-run-step-contracts-v1`
   * an attempt that returns at or after it fails with `graph.node_deadline` (its result and state
   * patch discarded) and takes the node's retry path: `failed_retryable` while attempts are left,
   * else the run fails with that code. The handler sees it as `node.deadline` and `node.cancelled`.
   */
  readonly deadlineSeconds?: number;
  /**
   * Run one attempt. `node` (runs since `agent-run-step-contracts-v1`, else undefined): the attempt's
   * id, number, deadline and cancellation flag (seed 004 `NodeContext`).
   */
  run(state: S, ctx: RunContext, node?: NodeContext): Promise<NodeResult<S>>;
}

/** An edge; `when` names a condition that must hold (and can be blocked in static checks). */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly when?: string;
}

export interface GraphDefinition<S> {
  readonly name: string;
  readonly version: string;
  readonly start: string;
  /** Nodes that end the run when they complete. */
  readonly terminal: readonly string[];
  readonly nodes: readonly GraphNode<S>[];
  readonly edges: readonly GraphEdge[];
  readonly conditions: Readonly<Record<string, (state: S) => boolean>>;
  readonly initialState: (task: Readonly<Record<string, unknown>>) => S;
  /**
   * The typed state as a zod object. Every `statePatch` a node returns must fit it (its keys only,
   * each value valid for its key); a patch that does not fails the node with
   * `graph.invalid_state_patch` and is not applied.
   */
  readonly stateSchema: GraphStateSchema<S>;
  readonly tools: readonly string[];
  /** The policies runs of this graph may use, and the default (see {@link ProfilePolicies}). */
  readonly policies: ProfilePolicies;
  readonly completion: CompletionContract;
  /** Maximum node executions (guards against cycles); the runner's step budget applies too. */
  readonly maxNodeRuns?: number;
  /**
   * When the output guardrail blocks the final output (default fail). On `retry` the terminal node
   * that produced it runs again with the block's feedback in its state under {@link OUTPUT_FEEDBACK_KEY}.
   */
  readonly onBlockedOutput?: BlockedOutputChoice;
  /** How a person asked about one of its tool calls reads it; see `Profile.describeAction`. */
  readonly describeAction?: ActionDescriber;
  /** The answer of a run a budget ended after its writes took effect; see `Profile.deliveredAnswer`. */
  readonly deliveredAnswer?: DeliveredAnswer;
}

/** The state key under which a terminal node that runs again finds the {@link BlockedOutputFeedback}. */
export const OUTPUT_FEEDBACK_KEY = 'outputFeedback';
