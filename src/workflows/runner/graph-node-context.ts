import type { RunContext } from './run-context.js';

/** The longest deadline a node may declare (`GraphNode.deadlineSeconds`): 7 days. */
export const MAX_NODE_DEADLINE_SECONDS = 7 * 24 * 3600;

/** The failure code of a node attempt that was still running at its deadline. */
export const NODE_DEADLINE_CODE = 'graph.node_deadline';

/**
 * What a graph node's handler knows of the attempt it runs in (seed 004 `NodeContext`), its third
 * argument on runs since `agent-run-step-contracts-v1` (docs/runner.md, "Step contracts").
 */
export interface NodeContext {
  readonly runId: string;
  /** The node's id: the step the events of this attempt carry as `stepId`. */
  readonly stepId: string;
  /** The harness's attempt of the node in this visit: 1, 2, … */
  readonly attempt: number;
  /** `<stepId>#<attempt>@<sequence of its step.started>`: the `attemptId` of this attempt's events. */
  readonly attemptId: string;
  /**
   * When the attempt must be done (ISO, workflow time): the handler's start plus the node's
   * `deadlineSeconds`, never later than the run's own deadline (the run's deadline alone when the
   * node declares none).
   */
  readonly deadline: string;
  /**
   * True once the run's cancellation was requested (`cancelRun`; runs since `agent-run-config-pin-v1`
   * also a Temporal workflow cancellation, with the same reason) or workflow time reached
   * `deadline`: the node should stop and return. Read from workflow time, so it replays the same.
   */
  readonly cancelled: boolean;
  /** Why `cancelled` is true (`run_cancelled` wins), or null while it is false. */
  readonly cancelReason: 'run_cancelled' | 'deadline' | null;
}

/**
 * The node context of an attempt of `nodeId` whose handler starts now. Never throws.
 * @param deadlineSeconds the node's declared deadline, or undefined (the run's deadline only).
 */
export function nodeContext(
  ctx: RunContext,
  nodeId: string,
  attempt: number,
  attemptId: string,
  deadlineSeconds: number | undefined,
): NodeContext {
  const runDeadline = Date.parse(ctx.deadline);
  const own = deadlineSeconds === undefined ? runDeadline : Date.parse(ctx.now()) + deadlineSeconds * 1000;
  const deadline = new Date(Math.min(own, runDeadline)).toISOString();
  const reason = (): NodeContext['cancelReason'] => {
    if (ctx.cancelRequested()) return 'run_cancelled';
    return Date.parse(ctx.now()) >= Date.parse(deadline) ? 'deadline' : null;
  };
  return {
    runId: ctx.runId,
    stepId: nodeId,
    attempt,
    attemptId,
    deadline,
    get cancelled() {
      return reason() !== null;
    },
    get cancelReason() {
      return reason();
    },
  };
}

/**
 * Has the attempt of `node` outlived its own declared deadline? A node that declares none is bounded
 * only by the run's deadline, whose timer ends the run. Never throws.
 */
export function pastNodeDeadline(ctx: RunContext, node: NodeContext, declared: boolean): boolean {
  return declared && Date.parse(ctx.now()) >= Date.parse(node.deadline);
}

/** What is wrong with a node's declared deadline (empty when nothing); `validateGraph` reports it. */
export function deadlineProblems(nodeId: string, deadlineSeconds: number | undefined): string[] {
  if (deadlineSeconds === undefined) return [];
  if (Number.isFinite(deadlineSeconds) && deadlineSeconds > 0 && deadlineSeconds <= MAX_NODE_DEADLINE_SECONDS)
    return [];
  return [
    `node ${nodeId}: deadlineSeconds must be a positive number of at most ${MAX_NODE_DEADLINE_SECONDS}`,
  ];
}
