import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { AgentTenantKey } from '../contract/visibility.js';
import type { Caller } from './caller-identity.js';
import { ApiError } from './api-error.js';

/** A run the caller may see: its handle and whether it is still running. */
export interface RunAccess {
  readonly handle: WorkflowHandle;
  readonly running: boolean;
  readonly executionStatus: string;
  readonly memo: Readonly<Record<string, unknown>>;
}

/** Workflow ids the service accepts in a path (the ids it creates, and the CLI's). */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,399}$/;

/**
 * The run `runId` if it is an agent run of the caller's tenant. Anything else (no such workflow,
 * another workflow type, a run of another tenant, a run started without a tenant) is the same 404, so
 * a caller learns nothing about other tenants' runs.
 * @throws ApiError 404 `run.not_found`.
 */
export async function accessRun(client: Client, caller: Caller, runId: string): Promise<RunAccess> {
  const notFound = () => new ApiError(404, 'run.not_found', `no run ${runId.slice(0, 100)} in your tenant`);
  if (!RUN_ID.test(runId)) throw notFound();
  const handle = client.workflow.getHandle(runId);
  try {
    const d = await handle.describe();
    if (d.type !== 'agentRun' || d.typedSearchAttributes.get(AgentTenantKey) !== caller.tenant)
      throw notFound();
    return {
      handle,
      running: d.status.name === 'RUNNING',
      executionStatus: d.status.name,
      memo: d.memo ?? {},
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notFound();
    throw err;
  }
}
