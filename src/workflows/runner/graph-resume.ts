import type { GraphEdge, NodeResult } from './graph-definition.js';

/**
 * A node's pause, as the graph carries it when the run continues as new in the middle of the wait:
 * the node's result without its state patch (already in the carried state).
 */
export type CarriedPause<S> = Omit<NodeResult<S>, 'statePatch'>;

/** What a graph run resumes from: the next node, or the node whose wait it continues. */
export interface GraphResume<S> {
  readonly state: S;
  readonly node: string;
  readonly pause?: CarriedPause<S>;
  /** With the node checks: the edge that led to `node` (null for the start node). */
  readonly edge?: GraphEdge | null;
  /** With the node checks, in the middle of a wait: the attempt of `node` the wait belongs to. */
  readonly attempt?: number;
  readonly attemptId?: string;
}

/**
 * Where a graph run resumes should its wait move to a new history (see `WaitOptions.resumeAt`): the
 * state, the node and its pause (`result` without the state patch, already in `state`) and, with the
 * node checks, the edge that led to the node and the attempt the wait belongs to. Never throws.
 */
export function resumePoint<S>(
  result: NodeResult<S>,
  state: S,
  node: string,
  checks: boolean,
  edge: GraphEdge | null,
  attempt: number,
  attemptId: string | undefined,
): Record<string, unknown> {
  const { statePatch: _applied, ...carried } = result;
  const at: GraphResume<S> = {
    state,
    node,
    pause: carried,
    ...(checks ? { edge, attempt, ...(attemptId !== undefined ? { attemptId } : {}) } : {}),
  };
  return at as unknown as Record<string, unknown>;
}
