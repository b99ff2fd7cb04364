import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import { HarnessError } from '../../contract/errors.js';
import {
  checkBlockedOutputChoice,
  profileHeader,
  type BlockedOutputFeedback,
  type Profile,
  type ProfileResult,
} from './profile.js';
import type { RunContext } from './run-context.js';
import {
  OUTPUT_FEEDBACK_KEY,
  type GraphDefinition,
  type GraphEdge,
  type GraphNode,
  type NodeResult,
  type RouteDecision,
} from './graph-definition.js';
import { validateGraph } from './graph-validation.js';
import { scopedContext } from './graph-node-scope.js';
import { NODE_DEADLINE_CODE, nodeContext, pastNodeDeadline, type NodeContext } from './graph-node-context.js';
import { checkPatch, failedNode, nextAttemptDelay } from './graph-node-failure.js';
import { resumePoint, type GraphResume } from './graph-resume.js';
import { statePatchCheck, type StatePatchCheck } from './graph-state-patch.js';
import { versionedName } from '../../contract/versioned-name.js';

// The graph profile's public face (agent-harness/workflow): its definition and static checks.
export {
  OUTPUT_FEEDBACK_KEY,
  type GraphDefinition,
  type GraphEdge,
  type GraphNode,
  type NodeResult,
  type RouteDecision,
} from './graph-definition.js';
export { reachableNodes, validateGraph } from './graph-validation.js';
export { NODE_DEADLINE_CODE, type NodeContext } from './graph-node-context.js';

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
 * With the step contracts too (`RunContext.stepContracts`, runs since `agent-run-step-contracts-v1`):
 * each attempt's handler gets a {@link NodeContext} (attempt id, deadline, cancellation flag); an
 * attempt that returns at or after its declared deadline fails with `graph.node_deadline` and takes
 * the node's retry path; every failed attempt is a `step.failed` with `status` `failed_retryable`
 * (another attempt follows) or `failed_terminal`.
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
    ...profileHeader(g, 'graph'),
    check: () => void built(),
    run: (ctx) => built().run(ctx),
  };
}

/** The run of {@link createGraphProfile}'s profile, its graph checked and built. */
function buildGraphProfile<S extends Record<string, unknown>>(g: GraphDefinition<S>): Pick<Profile, 'run'> {
  validateGraph(g);
  checkBlockedOutputChoice(versionedName(g.name, g.version), g.onBlockedOutput);
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const checkState = statePatchCheck(g.stateSchema);
  return {
    async run(ctx: RunContext): Promise<ProfileResult> {
      const resumed = ctx.resume as GraphResume<S> | undefined;
      let state = resumed?.state ?? g.initialState(ctx.task);
      let current = resumed?.node ?? g.start;
      // A wait the previous generation was in: the node does not run again, its pause is taken up.
      let pause = resumed?.pause;
      const checks = ctx.graphNodeChecks();
      const contracts = checks && ctx.stepContracts();
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
          const route = routeDecisionOf(g, node);
          attemptId = ctx.enterStep(node.id, checks ? attempt : undefined);
          ctx.emit('route.decided', checks ? { ...route, edge, attempt } : { ...route });
          const contract = contracts ? attemptContext(ctx, node, attempt, attemptId) : undefined;
          result = await node.run(state, scopedContext(ctx, node), contract);
          if (contract && pastNodeDeadline(ctx, contract, node.deadlineSeconds !== undefined)) {
            // Too late: the result is discarded and the attempt fails, retried while attempts are left.
            const message = `node ${node.id} attempt ${attempt} returned after its deadline ${contract.deadline}`;
            const failure = { code: NODE_DEADLINE_CODE, message };
            await ctx.sleep(nextAttemptDelay(ctx, node, attempt, undefined, failure));
            attempt += 1;
            continue;
          }
          if (result.statePatch) {
            if (checks) checkPatch(ctx, checkState, node.id, attempt, result.statePatch);
            state = { ...state, ...result.statePatch };
          }
        }
        // Where to resume should the wait move to a new history (see WaitOptions.resumeAt).
        const resumeAt = () => resumePoint(result, state, node.id, checks, edge, attempt, attemptId);
        switch (result.outcome) {
          case 'retry': {
            if (!checks) {
              await ctx.sleep(result.retryAfterSeconds ?? 1);
              continue;
            }
            await ctx.sleep(nextAttemptDelay(ctx, node, attempt, result.retryAfterSeconds));
            attempt += 1;
            continue;
          }
          case 'failed':
            throw failedNode(ctx, node.id, attempt, result.failure, checks);
          case 'pause_for_input': {
            const slot = result.input?.slot ?? 'input';
            const fallback = result.input?.default;
            const value = await ctx.askInput(slot, result.input?.prompt ?? `please provide ${slot}`, {
              resumeAt: resumeAt(),
              ...(fallback !== undefined ? { expiryDefault: fallback } : {}),
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
          return {
            output: result.output ?? state,
            recompose: recomposer(ctx, node, state, checks, checkState),
          };
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

/** The node context of an attempt whose handler starts now (step contracts on). */
function attemptContext<S>(
  ctx: RunContext,
  node: GraphNode<S>,
  attempt: number,
  attemptId: string | undefined,
): NodeContext {
  return nodeContext(ctx, node.id, attempt, attemptId ?? `${node.id}#${attempt}`, node.deadlineSeconds);
}

/** The route decision of `node`: its capabilities, and the graph's other tools excluded there. */
function routeDecisionOf<S>(g: GraphDefinition<S>, node: GraphNode<S>): RouteDecision {
  const capabilities = node.capabilities ?? [];
  return {
    route: `${g.name}:${node.id}`,
    candidateCapabilities: capabilities,
    excludedCapabilities: g.tools.filter((t) => !capabilities.includes(t)),
    reasonCode: capabilities.length ? 'route.node_capabilities' : 'route.no_tools',
  };
}

/**
 * How a terminal node composes again after its output was blocked: it runs again with the
 * {@link BlockedOutputFeedback} in its state under {@link OUTPUT_FEEDBACK_KEY}, and must complete again.
 * @throws HarnessError `graph.recompose_failed` when it does not complete; RunStop
 *   `graph.invalid_state_patch` (node checks on) when its state patch does not fit.
 */
function recomposer<S extends Record<string, unknown>>(
  ctx: RunContext,
  node: GraphNode<S>,
  state: S,
  checks: boolean,
  checkState: StatePatchCheck,
): (feedback: BlockedOutputFeedback) => Promise<ProfileResult> {
  return async (feedback: BlockedOutputFeedback): Promise<ProfileResult> => {
    const withFeedback = { ...state, [OUTPUT_FEEDBACK_KEY]: feedback };
    const attemptId = ctx.enterStep(node.id, checks ? 1 : undefined);
    const contract = checks && ctx.stepContracts() ? attemptContext(ctx, node, 1, attemptId) : undefined;
    const result = await node.run(withFeedback, scopedContext(ctx, node), contract);
    if (result.outcome !== 'completed') {
      throw new HarnessError(
        'graph.recompose_failed',
        `terminal node ${node.id} did not complete when composing again (${result.outcome})`,
      );
    }
    if (checks && result.statePatch) checkPatch(ctx, checkState, node.id, 1, result.statePatch);
    const next = { ...withFeedback, ...result.statePatch };
    ctx.completeStep(node.id);
    return { output: result.output ?? next, recompose: recomposer(ctx, node, next, checks, checkState) };
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
