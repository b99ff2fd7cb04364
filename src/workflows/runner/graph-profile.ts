import type { CompletionContract } from '../completion/index.js';
import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import { HarnessError } from '../../contract/errors.js';
import {
  checkBlockedOutputChoice,
  type BlockedOutputChoice,
  type BlockedOutputFeedback,
  type Profile,
  type ProfilePolicies,
  type ProfileResult,
} from './profile.js';
import type { ConfirmRequest, RunContext } from './run-context.js';
import { RunStop } from './run-stop.js';
import {
  nodeRetryPolicy,
  retryDelaySeconds,
  retryPolicyProblems,
  type NodeRetryPolicy,
} from './graph-node-retry.js';
import {
  isStateSchema,
  statePatchCheck,
  type GraphStateSchema,
  type StatePatchCheck,
} from './graph-state-patch.js';

/** Outcome of one node (seed 004 NodeResult). */
export interface NodeResult<S> {
  readonly outcome:
    'completed' | 'retry' | 'pause_for_input' | 'pause_for_confirmation' | 'pause_for_human' | 'failed';
  readonly statePatch?: Partial<S>;
  readonly nextNode?: string;
  readonly retryAfterSeconds?: number;
  /** For pause_for_confirmation / pause_for_human: what to ask. */
  readonly confirmation?: ConfirmRequest;
  /** For pause_for_input: the slot and the question. */
  readonly input?: { readonly slot: string; readonly prompt: string };
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
  run(state: S, ctx: RunContext): Promise<NodeResult<S>>;
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
}

/**
 * A node's pause, as the graph carries it when the run continues as new in the middle of the wait:
 * the node's result without its state patch (already in the carried state).
 */
type CarriedPause<S> = Omit<NodeResult<S>, 'statePatch'>;

/** What a graph run resumes from: the next node, or the node whose wait it continues. */
interface GraphResume<S> {
  readonly state: S;
  readonly node: string;
  readonly pause?: CarriedPause<S>;
  /** With the node checks: the edge that led to `node` (null for the start node). */
  readonly edge?: GraphEdge | null;
  /** With the node checks, in the middle of a wait: the attempt of `node` the wait belongs to. */
  readonly attempt?: number;
  readonly attemptId?: string;
}

/** The state key under which a terminal node that runs again finds the {@link BlockedOutputFeedback}. */
export const OUTPUT_FEEDBACK_KEY = 'outputFeedback';

/**
 * Static reachability: every node reachable from `start` when the edges guarded by
 * `blockedConditions` can never be taken. Used to prove, e.g., that `create_refund` is unreachable
 * before `confirmation_granted`.
 */
export function reachableNodes(
  graph: Pick<GraphDefinition<unknown>, 'edges'>,
  start: string,
  blockedConditions: ReadonlySet<string> | readonly string[],
): Set<string> {
  const blocked = new Set(blockedConditions);
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const e of graph.edges) {
      if (e.from !== node || (e.when !== undefined && blocked.has(e.when)) || seen.has(e.to)) continue;
      seen.add(e.to);
      queue.push(e.to);
    }
  }
  return seen;
}

/** Checks a graph's shape at composition time. @throws HarnessError `graph.invalid`. */
export function validateGraph<S>(g: GraphDefinition<S>): void {
  const ids = new Set(g.nodes.map((n) => n.id));
  const problems: string[] = [];
  if (ids.size !== g.nodes.length) problems.push('duplicate node ids');
  if (!ids.has(g.start)) problems.push(`start node ${g.start} is not defined`);
  for (const e of g.edges) {
    if (!ids.has(e.from)) problems.push(`edge from unknown node ${e.from}`);
    if (!ids.has(e.to)) problems.push(`edge to unknown node ${e.to}`);
    if (e.when !== undefined && !g.conditions[e.when])
      problems.push(`edge ${e.from}->${e.to} uses unknown condition ${e.when}`);
  }
  for (const t of g.terminal) if (!ids.has(t)) problems.push(`terminal node ${t} is not defined`);
  for (const n of g.nodes) problems.push(...retryPolicyProblems(n.id, n.retry));
  if (!isStateSchema(g.stateSchema)) problems.push('stateSchema must be a zod object schema');
  if (problems.length)
    throw new HarnessError('graph.invalid', `graph ${g.name}@${g.version}: ${problems.join('; ')}`, {
      problems,
    });
}

/** Wrap a RunContext so a node can only call its own capabilities. */
function scopedContext(ctx: RunContext, node: GraphNode<unknown>): RunContext {
  if (!node.capabilities) return ctx;
  const allowed = node.capabilities;
  return Object.create(ctx, {
    tool: {
      value: async (name: string, args: unknown, options?: Parameters<RunContext['tool']>[2]) => {
        if (!allowed.includes(name)) {
          ctx.emit('route.capability_excluded', {
            node: node.id,
            tool: name,
            reasonCode: 'route.capability_excluded',
          });
          return {
            toolCallId: `${ctx.runId}:-1`,
            seq: -1,
            toolName: name,
            toolVersion: options?.version ?? '',
            status: 'rejected' as const,
            artifactIds: [],
            errorCode: 'route.capability_excluded',
            errorMessage: `${name} is not a capability of node ${node.id}`,
            startedAt: '',
            finishedAt: '',
          };
        }
        return ctx.tool(name, args, options);
      },
    },
  }) as RunContext;
}

/**
 * A node's failure as the run records it: a `step.failed` event with the node, its attempt and the
 * code, then the stop that ends the run `failed` with that code.
 */
function nodeFailure(
  ctx: RunContext,
  node: string,
  attempt: number,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): RunStop {
  ctx.emit('step.failed', { stepId: node, attempt, code, message, ...details });
  return new RunStop('failed', { code, message, details: { node, attempt, ...details } });
}

/**
 * Check a node's state patch (node checks on): a patch that does not fit the state schema fails the
 * node with `graph.invalid_state_patch` and is not applied.
 * @throws RunStop `graph.invalid_state_patch`.
 */
function checkPatch(
  ctx: RunContext,
  check: StatePatchCheck,
  node: string,
  attempt: number,
  patch: unknown,
): void {
  const issues = check(patch);
  if (issues === undefined) return;
  throw nodeFailure(
    ctx,
    node,
    attempt,
    'graph.invalid_state_patch',
    `node ${node} returned a state patch that does not fit the graph's state schema: ${issues
      .map((i) => `${i.path || '(patch)'}: ${i.message}`)
      .join('; ')}`,
    { issues },
  );
}

/**
 * A graph profile: typed state, nodes, conditional edges, route decisions. The runner records each
 * node as a step; state patches are kept in the run's profile state. A blocked output is composed
 * again by the terminal node (see {@link GraphDefinition.onBlockedOutput}); a terminal node that does
 * not complete then fails the run with `graph.recompose_failed`.
 *
 * With the node checks (`RunContext.graphNodeChecks`, every run since
 * `agent-run-graph-node-checks-v1`): a state patch that does not fit {@link GraphDefinition.stateSchema}
 * fails the node (`graph.invalid_state_patch`, state unchanged); `retry` waits on a durable timer with
 * the node's backoff and fails the node once its attempts are used up (`graph.attempts_exhausted`); a
 * node failure is a `step.failed` event; node events carry the node's attempt.
 *
 * Built on first use (see builtOnFirstUse): the returned profile carries the definition's name,
 * version, tools, policies and completion contract at once; the graph is checked and its state schema
 * read when the profile is first checked or run. The workflow sandbox evaluates an app's modules for
 * every run, so a run of another profile builds none of it. `composeAgentRun` (the worker process at
 * start, `harness start`) calls {@link Profile.check} for every profile, a run for its own.
 * @throws from `check()` and the first `run()`: HarnessError `graph.invalid`, ProfileConfigError
 *   `profile.invalid` for an unusable definition. Creating it throws nothing.
 */
export function createGraphProfile<S extends Record<string, unknown>>(g: GraphDefinition<S>): Profile {
  const built = builtOnFirstUse(() => buildGraphProfile(g));
  return {
    name: g.name,
    version: g.version,
    kind: 'graph',
    completion: g.completion,
    tools: g.tools,
    policies: g.policies,
    ...(g.onBlockedOutput ? { onBlockedOutput: g.onBlockedOutput } : {}),
    check: () => void built(),
    run: (ctx) => built().run(ctx),
  };
}

/** The run of {@link createGraphProfile}'s profile, its graph checked and built. */
function buildGraphProfile<S extends Record<string, unknown>>(g: GraphDefinition<S>): Pick<Profile, 'run'> {
  validateGraph(g);
  checkBlockedOutputChoice(`${g.name}@${g.version}`, g.onBlockedOutput);
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const toolNames = g.tools;
  const checkState = statePatchCheck(g.stateSchema);
  /** Run terminal `node` again with the feedback in its state; it must complete again. */
  const recomposer =
    (ctx: RunContext, node: GraphNode<S>, state: S, checks: boolean) =>
    async (feedback: BlockedOutputFeedback): Promise<ProfileResult> => {
      const withFeedback = { ...state, [OUTPUT_FEEDBACK_KEY]: feedback };
      ctx.enterStep(node.id, checks ? 1 : undefined);
      const result = await node.run(withFeedback, scopedContext(ctx, node));
      if (result.outcome !== 'completed') {
        throw new HarnessError(
          'graph.recompose_failed',
          `terminal node ${node.id} did not complete when composing again (${result.outcome})`,
        );
      }
      if (checks && result.statePatch) checkPatch(ctx, checkState, node.id, 1, result.statePatch);
      const next = { ...withFeedback, ...result.statePatch };
      ctx.completeStep(node.id);
      return { output: result.output ?? next, recompose: recomposer(ctx, node, next, checks) };
    };
  return {
    async run(ctx: RunContext): Promise<ProfileResult> {
      const resumed = ctx.resume as GraphResume<S> | undefined;
      let state = resumed?.state ?? g.initialState(ctx.task);
      let current = resumed?.node ?? g.start;
      // A wait the previous generation was in: the node does not run again, its pause is taken up.
      let pause = resumed?.pause;
      const checks = ctx.graphNodeChecks();
      // With the checks: the edge that led to `current`, and the harness's attempt of it (1, 2, …).
      let edge: GraphEdge | null = resumed?.edge ?? null;
      let attempt = resumed?.attempt ?? 1;
      let attemptId = resumed?.attemptId;
      if (checks && pause !== undefined && attemptId !== undefined) ctx.continueAttempt(attemptId, attempt);
      const limit = g.maxNodeRuns ?? 100;
      for (let runs = 0; runs < limit; runs++) {
        const node = byId.get(current)!;
        let result: NodeResult<S>;
        if (pause !== undefined) {
          result = pause;
          pause = undefined;
        } else {
          const capabilities = node.capabilities ?? [];
          const route: RouteDecision = {
            route: `${g.name}:${node.id}`,
            candidateCapabilities: capabilities,
            excludedCapabilities: toolNames.filter((t) => !capabilities.includes(t)),
            reasonCode: capabilities.length ? 'route.node_capabilities' : 'route.no_tools',
          };
          attemptId = ctx.enterStep(node.id, checks ? attempt : undefined);
          ctx.emit('route.decided', checks ? { ...route, edge, attempt } : { ...route });
          result = await node.run(state, scopedContext(ctx, node));
          if (result.statePatch) {
            if (checks) checkPatch(ctx, checkState, node.id, attempt, result.statePatch);
            state = { ...state, ...result.statePatch };
          }
        }
        // Where to resume should the wait move to a new history (see WaitOptions.resumeAt).
        const resumeAt = (): Record<string, unknown> => {
          const { statePatch: _applied, ...carried } = result;
          const at: GraphResume<S> = {
            state,
            node: node.id,
            pause: carried,
            ...(checks ? { edge, attempt, ...(attemptId !== undefined ? { attemptId } : {}) } : {}),
          };
          return at as unknown as Record<string, unknown>;
        };
        switch (result.outcome) {
          case 'retry': {
            if (!checks) {
              await ctx.sleep(result.retryAfterSeconds ?? 1);
              continue;
            }
            const policy = nodeRetryPolicy(node.retry);
            if (attempt >= policy.maxAttempts)
              throw nodeFailure(
                ctx,
                node.id,
                attempt,
                'graph.attempts_exhausted',
                `node ${node.id} asked to retry after its last attempt (${policy.maxAttempts})`,
                { maxAttempts: policy.maxAttempts },
              );
            await ctx.sleep(retryDelaySeconds(policy, attempt, result.retryAfterSeconds));
            attempt += 1;
            continue;
          }
          case 'failed': {
            const code = result.failure?.code ?? 'graph.node_failed';
            const message = result.failure?.message ?? `node ${node.id} failed`;
            if (checks) throw nodeFailure(ctx, node.id, attempt, code, message);
            throw new HarnessError(code, message);
          }
          case 'pause_for_input': {
            const slot = result.input?.slot ?? 'input';
            const value = await ctx.askInput(slot, result.input?.prompt ?? `please provide ${slot}`, {
              resumeAt: resumeAt(),
            });
            state = { ...state, [slot]: value };
            continue; // run the same node again (the same attempt) with the new input
          }
          case 'pause_for_confirmation':
          case 'pause_for_human': {
            const request = result.confirmation ?? {
              decisionType: 'confirmation_required',
              summary: `confirm ${node.id}`,
            };
            const decision =
              result.outcome === 'pause_for_confirmation'
                ? await ctx.confirm(request, { resumeAt: resumeAt() })
                : await ctx.askHuman(request, { resumeAt: resumeAt() });
            state = {
              ...state,
              confirmation_granted: decision.decision === 'approved',
              confirmation_actor: decision.actor,
            };
            break;
          }
          case 'completed':
            break;
        }
        ctx.completeStep(node.id);
        if (g.terminal.includes(node.id))
          return { output: result.output ?? state, recompose: recomposer(ctx, node, state, checks) };
        const next = pickEdge(g, node.id, result.nextNode, state);
        if (!next) throw new HarnessError('graph.no_route', `no edge from ${node.id} matches the state`);
        current = next.to;
        edge = next;
        attempt = 1;
        await ctx.checkpoint(checks ? { state, node: current, edge } : { state, node: current });
      }
      throw new HarnessError('graph.too_many_node_runs', `graph ${g.name} ran more than ${limit} nodes`);
    },
  };
}

/** The edge taken from `from`: the requested target's if its edge is open, else the first open one. */
function pickEdge<S>(
  g: GraphDefinition<S>,
  from: string,
  requested: string | undefined,
  state: S,
): GraphEdge | undefined {
  const open = g.edges.filter(
    (e) => e.from === from && (e.when === undefined || g.conditions[e.when]!(state)),
  );
  if (requested !== undefined) return open.find((e) => e.to === requested);
  return open[0];
}
