import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { AgentRunInputSchema, describeInputIssues, type AgentRunInput } from '../contract/run-input.js';
import { HarnessError } from '../contract/errors.js';
import type { AgentRunWorkflow } from '../workflows/index.js';
import { signStart, type StartSigner } from './decisions/sign-start.js';
import { startFailure } from './start-error.js';
import {
  MARKER_FREE_START,
  MARKER_FREE_START_MEMO_KEY,
  START_FEATURES,
  START_FEATURES_MEMO_KEY,
} from '../contract/visibility.js';
import { versionedName } from '../contract/versioned-name.js';

/**
 * The workflow task timeout of a run. A burst of signals is taken in one workflow task: the server
 * caps signals at 10,000 per execution, and taking that many costs about 10 s of the SDK's time on a
 * small machine, so Temporal's default of 10 s would fail that task on every attempt (a wedged run).
 * A worker that dies in the middle of a workflow task is noticed after this long.
 */
export const RUN_WORKFLOW_TASK_TIMEOUT = '30 seconds';

export interface StartRunOptions {
  readonly taskQueue: string;
  readonly workflowId: string;
  readonly input: AgentRunInput;
  /** More memo fields (the run service records the digest of an idempotent request). */
  readonly memo?: Readonly<Record<string, string>>;
  /** Refuse a workflow id that was ever used, even by a run that has ended (idempotent starts). */
  readonly rejectDuplicateId?: boolean;
  /**
   * Sign the start (docs/authorization.md, "Who a run is for"): the run's requester, tenant and roles
   * become verified facts. Without it the run is anonymous: it has no requester a decision rule or a
   * profile can rely on, and a policy may refuse it.
   */
  readonly signer?: StartSigner;
}

/**
 * Validate the input at the client (the workflow validates again, and refuses a policy the profile
 * does not list with `run.policy_not_allowed`) and start `agentRun` with its pinned
 * versions as memo and initial search attributes (with `AgentTenant` and `AgentUser` when the input
 * names a tenant or user: the server must have them registered, see temporal-dev.yml). The memo also
 * asks for a marker-free start ({@link MARKER_FREE_START_MEMO_KEY}): the run records no baseline marker.
 * @throws HarnessError `run.invalid_input` naming the bad fields; nothing is started.
 */
export async function startAgentRun(
  client: Client,
  o: StartRunOptions,
): Promise<WorkflowHandleWithFirstExecutionRunId<AgentRunWorkflow>> {
  const parsed = AgentRunInputSchema.safeParse(o.input);
  if (!parsed.success)
    throw new HarnessError('run.invalid_input', `invalid run input: ${describeInputIssues(parsed.error)}`);
  const input = o.signer ? signStart(o.signer, o.workflowId, parsed.data) : parsed.data;
  const profile = versionedName(input.profile.name, input.profile.version);
  const policy = input.policy ? versionedName(input.policy.name, input.policy.version) : undefined;
  return client.workflow
    .start<AgentRunWorkflow>('agentRun', {
      taskQueue: o.taskQueue,
      workflowId: o.workflowId,
      workflowTaskTimeout: RUN_WORKFLOW_TASK_TIMEOUT,
      ...(o.rejectDuplicateId ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
      args: [input],
      memo: {
        ...o.memo,
        // A marker-free start: two history events less per run (docs/history-cost.md, "The third baseline").
        [MARKER_FREE_START_MEMO_KEY]: MARKER_FREE_START,
        // Later behaviours from the start without their markers (RunPatches.feature).
        [START_FEATURES_MEMO_KEY]: [...START_FEATURES],
        profile,
        ...(input.tenantId !== undefined ? { tenant: input.tenantId } : {}),
        ...(policy !== undefined ? { policy } : {}),
        ...(input.modelRoute !== undefined ? { modelRoute: input.modelRoute } : {}),
      },
      searchAttributes: {
        AgentStatus: ['created'],
        AgentProfile: [profile],
        AgentWaitingReason: ['none'],
        ...(input.tenantId !== undefined ? { AgentTenant: [input.tenantId] } : {}),
        ...(input.userId !== undefined ? { AgentUser: [input.userId] } : {}),
      },
      staticSummary: `${profile} with ${policy ?? 'its default policy'}`,
    })
    .catch((err: unknown) => {
      throw startFailure(err, client.options.namespace);
    });
}
