import { CancellationScope, condition, sleep } from '@temporalio/workflow';
import type { BudgetLimits } from '../runner/budget.js';
import type { RunnerPorts } from '../runner/ports.js';
import type { Runner } from '../runner/runner.js';
import { sealIfFinished } from '../runner/run-seal.js';
import { OVERDUE_WRITE_PATCH, type RunPatches } from './run-patches.js';

/**
 * The run's frame: what a generation of `agentRun` does around the Runner in the run's cancellation
 * scope: the deadline timer, and the last flush of the generation (the run ended, was cancelled, or
 * continues as new).
 *
 * Two shapes with the same commands and events (`agent-run-lean-frame-v1`, run-patches.ts
 * `LEAN_FRAME_PATCH`, decides). The scoped frame (histories without it): the deadline sleeps in a
 * cancellation scope of its own, the Runner stores its last events inside the run's scope, and the
 * flushes after it run in an outer non-cancellable scope. The lean frame: the deadline is the timer
 * alone in the workflow's root scope (a Temporal cancellation request cancels it there as it did its
 * scope), and the last flush runs after the run's scope, where a cancelRun signal or the deadline no
 * longer reaches it; only a Temporal cancellation request can, and then the flush port stores the
 * events again shielded (temporal-ports.ts). The deadline's callback runs one tick after its timer
 * fires in both shapes, so it still cancels the run's scope before the Runner's next command when
 * both resume in one workflow task (docs/history-cost.md, "Promises per step").
 */
export interface RunFrame {
  readonly lean: boolean;
  readonly runner: Runner;
  readonly ports: RunnerPorts;
  /** The run's cancellation scope (a cancelRun signal and the deadline cancel it). */
  readonly scope: CancellationScope;
  readonly runPatches: RunPatches;
  readonly limits: BudgetLimits;
}

const ignore = (): undefined => undefined;

/**
 * Start the run's deadline: after `ms`, `reached()` (the Runner reads it), then (an unresolved write
 * is never dropped) escalate a pending reconciliation and wait for the person, then cancel the run's
 * scope. Records the timer now. Failure semantics: never throws or rejects (a cancelled timer, a
 * failed escalation end the deadline quietly, as a cancelled run needs no deadline).
 */
export function startDeadline(frame: RunFrame, ms: number, reached: () => void): void {
  const { runner, runPatches, scope, limits } = frame;
  const overdue = async (): Promise<void> => {
    await runner.gate.escalateReconciliation(limits.deadlineSeconds);
    await condition(() => !runner.gate.reconciling);
    scope.cancel();
  };
  if (frame.lean) {
    // One tick after the timer, as the scoped shape's `await`; a throw ends it quietly, as there.
    void sleep(ms).then(() => {
      try {
        reached();
        if (runner.gate.reconciling && runPatches.on(OVERDUE_WRITE_PATCH)) return overdue().catch(ignore);
        scope.cancel();
      } catch {
        /* as the scoped shape's catch */
      }
      return undefined;
    }, ignore);
    return;
  }
  void CancellationScope.cancellable(async () => {
    await sleep(ms);
    reached();
    if (runner.gate.reconciling && runPatches.on(OVERDUE_WRITE_PATCH)) return overdue();
    scope.cancel();
  }).catch(ignore);
}

/** Run the Runner in the run's scope: the scoped frame stores the last events there, the lean one after. */
export function executeInScope(frame: RunFrame, run: (flush: boolean) => Promise<unknown>): Promise<unknown> {
  return frame.scope.run(() => run(!frame.lean));
}

/**
 * After the run's scope: end a run that has no terminal status as cancelled, and store the last events
 * (the lean frame's, or the cancelled end's). Failure semantics: as the flush port's.
 */
export async function finishFrame(frame: RunFrame, terminal: boolean): Promise<void> {
  const { runner } = frame;
  if (!frame.lean) {
    if (!terminal) await CancellationScope.nonCancellable(() => runner.finishCancelled());
    return;
  }
  if (!terminal) await runner.finishCancelled(false);
  sealIfFinished(runner);
  await frame.ports.flushEvents(runner.takeOutbox(), { last: true });
}

/** The last flush before continue-as-new (nothing pending between steps). Failure semantics: the port's. */
export function flushBeforeContinue(frame: RunFrame): Promise<void> {
  const { runner, ports } = frame;
  if (frame.lean) return ports.flushEvents(runner.takeOutbox(), { last: true });
  return CancellationScope.nonCancellable(() => ports.flushEvents(runner.takeOutbox(), { last: true }));
}
