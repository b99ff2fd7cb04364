import { HarnessError, type ToolDefinition, type ToolExecutor } from '../../../src/index.js';
import type { RefundStore } from '../business/refund-store.js';
import { createLogisticsReadTool } from './logistics-read.js';
import { createOrderReadTool } from './order-read.js';
import { createPolicySearchRefundTool } from './policy-search-refund.js';
import { createRefundCreateTool } from './refund-create.js';
import { createRefundVerifyTool } from './refund-verify.js';
import type { RefundTool } from './tool-support.js';

/** Names of the refund tools, all at version `v1`. */
export const REFUND_TOOL_NAMES = {
  orderRead: 'order.read',
  logisticsRead: 'logistics.read',
  policySearch: 'policy.search.refund',
  refundCreate: 'refund.create',
  refundVerify: 'refund.verify',
} as const;

/** Anything tools can be registered with (the harness tool registry, a test double of it). */
export interface ToolRegistrar {
  register(definition: ToolDefinition, executor: ToolExecutor): unknown;
}

/** Switches of the refund tools. */
export interface RefundToolsOptions {
  /**
   * `false` registers refund.create without its `reconcile` method (drill: a connector whose outcome
   * cannot be checked automatically, so a lost write waits for a person). The definition, and so the
   * registry digest, stay the same. Default `true`.
   */
  readonly reconcile?: boolean;
  /**
   * `false` registers refund.create without `idempotentByKey` (drill: a connector that does not
   * dedupe by the key, so a lost write settled `not_applied` waits for a person before another
   * attempt). This changes the definition, and so the digest runs pin. Default `true`.
   */
  readonly idempotentByKey?: boolean;
  /**
   * Drill: these tools fail every call with the given error code (a terminal business failure,
   * recorded as `failed_terminal` before any effect), as a broken connector would. Default none.
   */
  readonly failures?: readonly ToolFailureDrill[];
  /**
   * Drill: these tools are registered with another description under the same name and version
   * (another definition, so another digest: a rolling deploy that changed them without a new
   * version). Default none.
   */
  readonly changedDefinitions?: readonly string[];
}

/** One injected tool failure: every call of `tool` fails with `code`. */
export interface ToolFailureDrill {
  readonly tool: string;
  readonly code: string;
}

/** `tool` whose every call fails with `code` before its executor runs. */
function failing(tool: RefundTool, code: string): RefundTool {
  return {
    definition: tool.definition,
    executor: {
      execute: () =>
        Promise.reject(new HarnessError(code, `${tool.definition.name} failed (injected failure drill)`)),
    },
  };
}

/** `tool` whose definition does not declare `idempotentByKey`. */
function notIdempotent(tool: RefundTool): RefundTool {
  const { idempotentByKey: _declared, ...definition } = tool.definition;
  return { definition, executor: tool.executor };
}

/** `tool` without its executor's `reconcile` method. */
function withoutReconcile(tool: RefundTool): RefundTool {
  const { executor } = tool;
  return { definition: tool.definition, executor: { execute: (ctx, call) => executor.execute(ctx, call) } };
}

/**
 * The five refund tools bound to `store`, in graph order: order.read, logistics.read,
 * policy.search.refund, refund.create (the only write), refund.verify.
 */
export function createRefundTools(store: RefundStore, options: RefundToolsOptions = {}): RefundTool[] {
  const declared = createRefundCreateTool(store);
  const create = options.idempotentByKey === false ? notIdempotent(declared) : declared;
  const tools = [
    createOrderReadTool(store),
    createLogisticsReadTool(store),
    createPolicySearchRefundTool(store),
    options.reconcile === false ? withoutReconcile(create) : create,
    createRefundVerifyTool(store),
  ];
  return tools.map((t) => {
    const failure = options.failures?.find((f) => f.tool === t.definition.name);
    const tool = failure ? failing(t, failure.code) : t;
    if (!options.changedDefinitions?.includes(t.definition.name)) return tool;
    return {
      ...tool,
      definition: { ...tool.definition, description: `${tool.definition.description} (changed)` },
    };
  });
}

/**
 * Register the refund tools bound to `store` with `registry`, in the order of {@link createRefundTools}.
 *
 * @returns the registered tools.
 * @throws whatever `registry.register` throws (e.g. a conflict); tools before the failing one stay registered.
 */
export function registerRefundTools(
  registry: ToolRegistrar,
  store: RefundStore,
  options: RefundToolsOptions = {},
): RefundTool[] {
  const tools = createRefundTools(store, options);
  for (const tool of tools) registry.register(tool.definition, tool.executor);
  return tools;
}
export type { RefundTool } from './tool-support.js';
