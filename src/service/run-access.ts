import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { AgentTenantKey, AgentUserKey, QUERY_NAMES } from '../contract/visibility.js';
import type { AgentRunComposition } from '../workflows/index.js';
import type { RunView } from '../contract/run-view.js';
import type { EvidenceStore } from '../activities/store/index.js';
import type { RunRecord } from '../contract/run-record.js';
import type { Caller } from './caller-identity.js';
import { ApiError } from './api-error.js';
import { decisionContext, mayTakePending } from './decision-gate.js';

/** A run the caller may see: its handle, whether it is still running, and what was read to decide. */
export interface RunAccess {
  readonly handle: WorkflowHandle;
  readonly running: boolean;
  readonly executionStatus: string;
  readonly memo: Readonly<Record<string, unknown>>;
  /** The run's user (its `AgentUser` search attribute), when it names one. */
  readonly user: string | undefined;
  /** The run's `state` view, when the scope check already queried it (reuse it; do not query twice). */
  readonly view?: RunView;
}

/** What {@link accessRun} reads runs with. */
export interface RunAccessDeps {
  readonly client: Client;
  readonly store: EvidenceStore;
  readonly composition: AgentRunComposition;
}

/** Workflow ids the service accepts in a path (the ids it creates, and the CLI's). */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,399}$/;

/** The run's `state` view, or undefined when it does not answer (closed past the worker, not pinned yet). */
export async function queryView(handle: WorkflowHandle): Promise<RunView | undefined> {
  try {
    return await handle.query<RunView>(QUERY_NAMES.state);
  } catch {
    return undefined;
  }
}

/** True when a verified decision of the run names `user` (in its view, else its store record). */
function decidedBy(user: string, view: RunView | undefined, record: RunRecord | undefined): boolean {
  return (
    (view?.decisions ?? []).some((d) => d.principal === user) ||
    (record?.decisions ?? []).some((d) => d.principal === user)
  );
}

/**
 * The run `runId` if it is an agent run in the caller's scope (docs/api.md, "Scope"):
 * - an `operator` sees every run of their tenant;
 * - a `customer` sees the runs they requested (the run's user is the token's `sub`);
 * - an `approver` sees the runs they requested, the runs that wait now for an approval they may give
 *   (the approval inbox), and the runs whose verified decisions name them.
 *
 * Anything else (no such workflow, another workflow type, another tenant's run, a run started without
 * a tenant, a run out of the caller's scope) is the same 404, so a caller learns nothing about runs
 * they may not see. With `eagerView` (a decision, which needs the view anyway) the `state` query is
 * sent together with describe, saving a round trip; its answer is returned only for a running run in
 * scope and dropped otherwise (a query leaves nothing in the run's history).
 * @throws ApiError 404 `run.not_found`; Temporal's and the store's errors as they come.
 */
export async function accessRun(
  deps: RunAccessDeps,
  caller: Caller,
  runId: string,
  o: { readonly eagerView?: boolean } = {},
): Promise<RunAccess> {
  const notFound = () => new ApiError(404, 'run.not_found', `no run ${runId.slice(0, 100)} in your tenant`);
  if (!RUN_ID.test(runId)) throw notFound();
  const handle = deps.client.workflow.getHandle(runId);
  // Asked together with describe when the caller needs the view anyway; used only once the run is in scope.
  const eager = o.eagerView ? queryView(handle) : undefined;
  let access: RunAccess;
  try {
    const d = await handle.describe();
    if (d.type !== 'agentRun' || d.typedSearchAttributes.get(AgentTenantKey) !== caller.tenant)
      throw notFound();
    access = {
      handle,
      running: d.status.name === 'RUNNING',
      executionStatus: d.status.name,
      memo: d.memo ?? {},
      user: d.typedSearchAttributes.get(AgentUserKey),
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notFound();
    throw err;
  }
  const early = access.running && eager ? await eager : undefined;
  if (caller.kind === 'operator' || access.user === caller.user)
    return early ? { ...access, view: early } : access;
  if (caller.kind !== 'approver') throw notFound();
  const view = access.running ? (early ?? (await queryView(handle))) : undefined;
  if (view && mayTakePending(caller, decisionContext(deps.composition, view, access.user)))
    return { ...access, view };
  if (decidedBy(caller.user, view, view ? undefined : await deps.store.getRun(runId)))
    return { ...access, ...(view ? { view } : {}) };
  throw notFound();
}
