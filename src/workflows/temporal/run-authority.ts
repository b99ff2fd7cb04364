import { workflowInfo } from '@temporalio/workflow';
import type { PrincipalsSnapshot } from '../../contract/activity-interfaces.js';
import type { AgentRunInput } from '../../contract/run-input.js';
import { DEFAULT_AUTHORIZATION } from '../authz/authorization-rules.js';
import { DecisionAuthority } from '../authz/decision-authority.js';
import { PrincipalDirectory } from '../authz/principal-directory.js';
import type { RunIdentity } from '../authz/start-token.js';
import type { Policy, PolicySubject } from '../policy/policy.js';
import type { CarriedRun } from './carried-run.js';
import { checkedAuthz } from './run-checks.js';
import { establishIdentity, subjectOf } from './run-identity.js';
import type { StartPatches } from './start-patches.js';

/** Who a generation runs for and who may decide in it, from {@link establishRunAuthority}. */
export interface RunAuthority {
  /** Verified from the run's start token (or carried), anonymous when unsigned; none before identities. */
  readonly identity: RunIdentity | undefined;
  /** Who the run was started for: in run.started, every policy request and the `state` view. */
  readonly subject: PolicySubject;
  /** The signed-decision checks of a run that takes them (`patches.signedDecisions`). */
  readonly authority: DecisionAuthority | undefined;
}

/**
 * Who the run is for (under the trust scope) and, for a run that checks signed decisions, its
 * decision authority: its carried decision state restored and the principal registry of the start in
 * use, so a decision that comes before any wait (a cancellation) can be checked; each wait loads the
 * registry again. Reads the workflow clock, records nothing.
 * @throws ApplicationFailure (non-retryable) `run.start_token_refused` and `run.state_invalid` as
 *   {@link establishIdentity} does; `run.state_invalid` for carried decision state that is not
 *   well-formed.
 */
export function establishRunAuthority(o: {
  readonly patches: StartPatches;
  readonly input: AgentRunInput;
  readonly rawInput: unknown;
  readonly carried: CarriedRun | undefined;
  readonly principals: PrincipalsSnapshot | undefined;
  readonly runId: string;
  readonly firstExecutionRunId: string;
  readonly policy: Policy;
}): RunAuthority {
  const { patches, input, carried, runId, policy } = o;
  // Who the run is for: verified from its start token (or carried), anonymous when unsigned.
  const identity = patches.trustScope
    ? establishIdentity({
        input,
        rawInput: o.rawInput,
        carried,
        principals: o.principals,
        workflowId: runId,
        // Since agent-run-start-token-accepted-v1: when the server accepted the start, not the first task.
        nowMs: patches.startTokenAccepted ? workflowInfo().startTime.getTime() : Date.now(),
      })
    : undefined;
  /** Who the run was started for: in run.started, every policy request and the `state` view. */
  const subject = subjectOf(identity, input);
  const authority = patches.signedDecisions
    ? new DecisionAuthority({
        workflowId: runId,
        firstExecutionRunId: o.firstExecutionRunId,
        requester: subject.verified === false ? undefined : subject.userId,
        ...(subject.tenantId !== undefined ? { tenantId: subject.tenantId } : {}),
        ...(patches.trustScope ? { scoped: true } : {}),
        rules: policy.authorization ?? DEFAULT_AUTHORIZATION,
        ...(carried?.authz ? { carried: checkedAuthz(carried.authz) } : {}),
      })
    : undefined;
  // The registry as of the start, so a decision that comes before any wait (a cancellation) can be
  // checked; each wait loads it again.
  const principals = o.principals;
  if (authority && principals?.registry)
    authority.useDirectory(new PrincipalDirectory(principals.digest, principals.registry));
  return { identity, subject, authority };
}
