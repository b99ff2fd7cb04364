import { HarnessError, ToolRegistry } from '../../../src/index.js';
import type { PolicyDecision, PolicyFacts } from '../../../src/workflows/index.js';
import { authorizeDispatch } from '../../../src/workflows/index.js';
import type { RetailDb } from '../../../apps/retail/db/retail-db.js';
import type { RetailDbJson } from '../../../apps/retail/db/retail-types.js';
import { goldCall } from '../../../apps/retail/gold/gold-actions.js';
import type { RetailTask } from '../../../apps/retail/gold/retail-tasks.js';
import { registerRetailTools } from '../../../apps/retail/tools/retail-tools.js';
import { RETAIL_ORDER_WRITES, retailFacts } from '../../../apps/retail/workflow/retail-facts.js';
import { retailPolicy } from '../../../apps/retail/workflow/retail-policy.js';
import { retailToolRule } from '../../../apps/retail/workflow/retail-policy-rules.js';
import {
  RETAIL_TOOLS as T,
  RETAIL_TOOL_VERSION,
  retailToolName,
} from '../../../apps/retail/workflow/retail-tool-names.js';

/**
 * A run of a task's gold actions as a routed profile would see it: before each call, the policy's
 * dispatch decision over the facts `retailFacts` holds; after it, the facts updated from its result.
 * Where the gold omits what a run must do first, the simulation does it (and records it): authenticate
 * the customer by email when a call needs it, read the customer's profile (`get_user_details`, which
 * lists their orders) before the first order read or write, and read an order before a write on it
 * when it is not the order last read. Every action still runs, refused or not, so the database follows the gold.
 */

export const NOW = '2026-01-01T00:00:00.000Z';

/** One gold action's decision. */
export interface SimulatedDecision {
  readonly actionId: string;
  readonly tool: string;
  readonly decision: PolicyDecision;
}

/** A task's run: its decisions, the calls the simulation added, the final facts. */
export interface SimulatedRun {
  readonly decisions: readonly SimulatedDecision[];
  readonly added: readonly string[];
  readonly facts: PolicyFacts;
}

/** Apply a fact update to a plain facts object. */
export function applyUpdate(
  facts: Record<string, string | number | boolean>,
  tool: string,
  args: Record<string, unknown>,
  status: string,
  output?: unknown,
): void {
  const update = retailFacts({ tool, version: RETAIL_TOOL_VERSION, args, status, output }, { ...facts });
  for (const name of update.withdraw ?? []) delete facts[name];
  Object.assign(facts, update.set ?? {});
}

/** Simulate `task` on `db` (a fresh copy); `initial` is db.json, for owners and emails. */
export async function simulateTask(
  db: RetailDb,
  initial: RetailDbJson,
  task: RetailTask,
): Promise<SimulatedRun> {
  const registry = new ToolRegistry();
  registerRetailTools(registry, db);
  const facts: Record<string, string | number | boolean> = {};
  const decisions: SimulatedDecision[] = [];
  const added: string[] = [];
  let seq = 0;

  const run = async (tool: string, args: Record<string, unknown>): Promise<void> => {
    seq += 1;
    const checked = registry.validateCall(tool, RETAIL_TOOL_VERSION, args);
    if (!checked.ok) return applyUpdate(facts, tool, args, 'failed');
    try {
      const { output } = await registry
        .get(tool, RETAIL_TOOL_VERSION)
        .executor.execute(
          { signal: new AbortController().signal, heartbeat: () => undefined },
          goldCall(task, 1000 + seq, tool, args),
        );
      applyUpdate(facts, tool, args, 'succeeded', output);
    } catch (err) {
      if (!(err instanceof HarnessError)) throw err;
      applyUpdate(facts, tool, args, 'failed');
    }
  };
  const ownerOf = (args: Record<string, unknown>): string | undefined => {
    if (typeof args.user_id === 'string') return args.user_id;
    return typeof args.order_id === 'string' ? initial.orders[args.order_id]?.user_id : undefined;
  };

  for (const action of task.actions) {
    const tool = retailToolName(action.name);
    const args = action.arguments;
    const rule = retailToolRule(tool);
    if (rule !== undefined && !rule.beforeAuthentication && facts['user.authenticated'] !== true) {
      const owner = ownerOf(args);
      const email = owner === undefined ? undefined : initial.users[owner]?.email;
      if (email !== undefined) {
        added.push(`find_user_id_by_email(${email})`);
        await run(T.findUserIdByEmail, { email });
      }
    }
    const onOrder = tool === T.getOrderDetails || Object.hasOwn(RETAIL_ORDER_WRITES, tool);
    if (onOrder && facts['user.orders'] === undefined && typeof facts['user.id'] === 'string') {
      added.push(`get_user_details(${facts['user.id']})`);
      await run(T.getUserDetails, { user_id: facts['user.id'] });
    }
    if (Object.hasOwn(RETAIL_ORDER_WRITES, tool) && facts['order.id'] !== args.order_id) {
      added.push(`get_order_details(${String(args.order_id)})`);
      await run(T.getOrderDetails, { order_id: args.order_id });
    }
    const definition = registry.get(tool, RETAIL_TOOL_VERSION).definition;
    decisions.push({
      actionId: action.action_id,
      tool,
      decision: authorizeDispatch(retailPolicy, definition, args, NOW, { ...facts }),
    });
    await run(tool, args);
  }
  return { decisions, added, facts: { ...facts } };
}
