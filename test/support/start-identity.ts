import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { PrincipalRegistry } from '../../src/contract/principals.js';
import { PrincipalDirectory } from '../../src/workflows/authz/principal-directory.js';
import {
  startInputDigest,
  verifyStartToken,
  type StartCheck,
} from '../../src/workflows/authz/start-token.js';
import { TEST_PRINCIPALS } from './principals.js';

/** The input a run was started with (the first argument of its start event). */
export async function startInputOf(handle: WorkflowHandle): Promise<Record<string, unknown>> {
  const history = await handle.fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) throw new Error(`${handle.workflowId}: no start input in the history`);
  return defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload);
}

/**
 * Who the run's start token says the run is for, checked as the run checks it (against `registry`,
 * now); `'unsigned'` for a start without a token.
 */
export async function startIdentityOf(
  handle: WorkflowHandle,
  registry: PrincipalRegistry = TEST_PRINCIPALS,
): Promise<StartCheck | 'unsigned'> {
  const input = await startInputOf(handle);
  if (typeof input.startToken !== 'string') return 'unsigned';
  return verifyStartToken(
    input.startToken,
    new PrincipalDirectory('test', registry),
    {
      workflowId: handle.workflowId,
      inputDigest: startInputDigest(input),
      tenantId: typeof input.tenantId === 'string' ? input.tenantId : undefined,
      userId: typeof input.userId === 'string' ? input.userId : undefined,
    },
    Date.now(),
  );
}
