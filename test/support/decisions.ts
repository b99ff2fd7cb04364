import type { WorkflowHandle } from '@temporalio/client';
import type { RunView } from '../../src/core/workflow/run-view.js';
import { waitForState } from './harness.js';

/** Who decides in tests, unless a test says otherwise. */
export const TEST_APPROVER = 'operator@example.com';

/**
 * Wait until the run asks for a decision (confirmation or approval), then approve exactly that
 * pending action. Returns the view the decision was made on.
 */
export async function approvePending(
  handle: WorkflowHandle,
  o: { actor?: string; reason?: string; timeoutMs?: number } = {},
): Promise<RunView> {
  const view = await waitForState(
    handle,
    (v) => v.pendingAction?.kind === 'confirmation' || v.pendingAction?.kind === 'human',
    o.timeoutMs,
  );
  await handle.signal('approve', {
    actionId: view.pendingAction!.actionId,
    actor: o.actor ?? TEST_APPROVER,
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
  });
  return view;
}

/** Wait until the run asks for a decision, then reject exactly that pending action. */
export async function rejectPending(
  handle: WorkflowHandle,
  o: { actor?: string; reason?: string; timeoutMs?: number } = {},
): Promise<RunView> {
  const view = await waitForState(
    handle,
    (v) => v.pendingAction?.kind === 'confirmation' || v.pendingAction?.kind === 'human',
    o.timeoutMs,
  );
  await handle.signal('reject', {
    actionId: view.pendingAction!.actionId,
    actor: o.actor ?? TEST_APPROVER,
    reason: o.reason ?? 'not approved',
  });
  return view;
}
