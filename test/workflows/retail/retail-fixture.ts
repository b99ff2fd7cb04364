import type { WorkflowHandle } from '@temporalio/client';
import { RetailDbTemplate } from '../../../apps/retail/db/retail-template.js';
import type { RetailDb } from '../../../apps/retail/db/retail-db.js';
import { registerRetailTools } from '../../../apps/retail/tools/retail-tools.js';
import type { StoredEvent } from '../../../src/contract/store-records.js';
import { DB_JSON_PATH } from '../../apps/retail/retail-test-support.js';
import type { ToolRegistry } from '../../../src/index.js';
import { createHarnessFixture, type HarnessFixture } from '../../support/harness.js';

/** A retail tool call of a scripted answer. */
export const call = (name: string, args: Record<string, unknown>) => ({
  name: `retail.${name}`,
  version: 'v1',
  args,
});

/**
 * The customer's profile read (it lists the orders the policy lets the run read), then the first
 * order read, in one answer.
 */
export const profileThenRead = (userId: string, order: string) => ({
  toolCalls: [call('get_user_details', { user_id: userId }), call('get_order_details', { order_id: order })],
});

/** A scripted answer at conversation step `step` (assistant messages so far). */
export const at = (step: number, response: Record<string, unknown>) => ({ match: { step }, response });

/** The plan JSON text of a scripted `plan` answer. */
export const planText = (steps: Record<string, unknown>[], over: Record<string, unknown> = {}) =>
  JSON.stringify({
    plan_id: 'p1',
    goal: 'help the customer',
    assumptions: [],
    steps,
    replan_conditions: [],
    ...over,
  });

/** The retail fixture: the tests' worker with the retail tools over one fresh database. */
export interface RetailFixture {
  readonly h: HarnessFixture;
  readonly db: RetailDb;
  /** Start a v2 run; `tenant` puts it in a tenant (signed by the test delegate for `userId`), as the run service needs. */
  start(
    profile: 'retail.agent' | 'retail.router',
    route: string,
    message: string,
    tenant?: { tenantId: string; userId: string },
  ): Promise<WorkflowHandle>;
  events(handle: WorkflowHandle): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

/**
 * A harness fixture whose worker also serves the retail tools over a fresh copy of τ²-bench's retail
 * database, with the given scripted model routes.
 */
export async function createRetailFixture(
  name: string,
  scripts: Record<string, unknown>,
): Promise<RetailFixture> {
  const template = RetailDbTemplate.fromJsonFile(DB_JSON_PATH);
  const db = template.fresh();
  const h = await createHarnessFixture(name, {
    scripts,
    extend: [(registry: ToolRegistry) => void registerRetailTools(registry, db)],
  });
  return {
    h,
    db,
    start: (profile, route, message, tenant) =>
      h.start({ profile: { name: profile, version: 'v2' }, modelRoute: route, task: { message }, ...tenant }),
    events: (handle) => h.composition.store.listEvents(handle.workflowId),
    close: async () => {
      await h.close();
      db.close();
    },
  };
}
