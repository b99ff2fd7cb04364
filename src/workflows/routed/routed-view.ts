import type { RunPlanStep, RunRouting } from '../../contract/run-view.js';
import type { RoutedState } from './routed-state.js';

/**
 * What the run view (`harness show`, the `state` query) shows of a routed run: its domain, route
 * changes, replans and the admitted plan's steps with their status, read from the profile's
 * checkpoint. Undefined for any other profile's state. Never throws.
 */
export function routingView(
  profileState: Readonly<Record<string, unknown>> | undefined,
): RunRouting | undefined {
  const r = profileState?.routed as Partial<RoutedState> | undefined;
  if (r === null || typeof r !== 'object' || typeof r.phase !== 'string') return undefined;
  const plan = r.plan;
  const order = Array.isArray(r.order) ? r.order : [];
  const outcomes = r.outcomes ?? {};
  const statusOf = (stepId: string, i: number): RunPlanStep['status'] =>
    outcomes[stepId] ?? (r.phase === 'step' && i === r.pos ? 'running' : 'pending');
  return {
    phase: r.phase,
    domain: r.current ?? null,
    routeChanges: r.routeChanges ?? 0,
    replans: r.replans ?? 0,
    plan:
      plan && order.length
        ? {
            planId: plan.planId,
            steps: order.map((id, i) => {
              const step = plan.steps.find((s) => s.stepId === id);
              return {
                stepId: id,
                capability: step?.capability ?? '',
                objective: step?.objective ?? '',
                status: statusOf(id, i),
              };
            }),
          }
        : null,
  };
}
