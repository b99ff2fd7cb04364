import { ApplicationFailure, Context } from '@temporalio/activity';

/**
 * The id of the workflow that scheduled the running activity (a compact step input leaves out the
 * run id when it is this, compact-step-input.ts).
 * @throws ApplicationFailure (non-retryable) `activity.no_workflow` for an activity no workflow
 *   scheduled (a standalone activity): its input must name the run.
 */
export function callingWorkflowId(): string {
  const id = Context.current().info.workflowExecution?.workflowId;
  if (id === undefined) {
    throw ApplicationFailure.create({
      type: 'activity.no_workflow',
      nonRetryable: true,
      message: 'a compact step input without a run id needs the workflow that scheduled it',
    });
  }
  return id;
}
