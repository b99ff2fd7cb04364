import { ApplicationFailure } from '@temporalio/workflow';
import { PrincipalDirectory } from '../authz/principal-directory.js';
import {
  ANONYMOUS,
  RunIdentitySchema,
  startInputDigest,
  verifyStartToken,
  type RunIdentity,
} from '../authz/start-token.js';
import type { PolicySubject } from '../policy/policy.js';
import type { AgentRunInput } from '../../contract/run-input.js';
import type { PrincipalsSnapshot } from '../../contract/activity-interfaces.js';
import type { CarriedRun } from './carried-run.js';

/**
 * Who this run is for (docs/authorization.md, "Who a run is for"), once per generation: the first
 * verifies the start token against the registry its start loaded and the workflow clock; later ones
 * take what the first verified from the carried state (sealed, carried-origin.ts). An unsigned start
 * is anonymous. A generation carried by a build before identities (no `identity`) gets `undefined`:
 * the run keeps the claimed `userId`/`tenantId` it started with.
 *
 * @throws ApplicationFailure `run.start_token_refused` (non-retryable; the message starts with the
 * token's reason code, `start.*` or `decision.*`) when a start token does not verify: a forged or
 * stale token never starts a run as anyone, not even anonymously. `run.state_invalid` for a carried
 * identity that is not well-formed.
 */
export function establishIdentity(o: {
  readonly input: AgentRunInput;
  readonly rawInput: unknown;
  readonly carried: CarriedRun | undefined;
  readonly principals: PrincipalsSnapshot | undefined;
  readonly workflowId: string;
  readonly nowMs: number;
}): RunIdentity | undefined {
  if (o.carried !== undefined) {
    if (o.carried.identity === undefined) return undefined;
    const parsed = RunIdentitySchema.safeParse(o.carried.identity);
    if (!parsed.success)
      throw ApplicationFailure.create({
        type: 'run.state_invalid',
        message: 'carried identity is not well-formed',
        nonRetryable: true,
      });
    return parsed.data;
  }
  const token = o.input.startToken;
  if (token === undefined) return ANONYMOUS;
  const refused = (code: string, message: string): never => {
    throw ApplicationFailure.create({
      type: 'run.start_token_refused',
      message: `${code}: ${message}`,
      nonRetryable: true,
    });
  };
  const registry = o.principals?.registry;
  if (registry === undefined) return refused('start.unknown_key', 'this worker has no principal registry');
  const check = verifyStartToken(
    token,
    new PrincipalDirectory(o.principals!.digest, registry),
    {
      workflowId: o.workflowId,
      inputDigest: startInputDigest(o.rawInput as Record<string, unknown>),
      tenantId: o.input.tenantId,
      userId: o.input.userId,
    },
    o.nowMs,
  );
  return check.ok ? check.identity : refused(check.code, check.message);
}

/**
 * The subject policies and the run's record see: the verified identity; nothing for an anonymous run
 * but `verified: false`; for a run without identities, the claimed `tenantId`/`userId` as before.
 */
export function subjectOf(identity: RunIdentity | undefined, input: AgentRunInput): PolicySubject {
  if (identity === undefined)
    return {
      ...(input.tenantId !== undefined ? { tenantId: input.tenantId } : {}),
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
    };
  if (!identity.verified) return { verified: false };
  return {
    ...(identity.tenantId !== undefined ? { tenantId: identity.tenantId } : {}),
    userId: identity.userId,
    verified: true,
    kind: identity.kind,
    roles: identity.roles,
  };
}
