import {
  CONTINUE_AS_NEW_PATCH,
  EVENT_ENVELOPE_PATCH,
  GRAPH_NODE_CHECKS_PATCH,
  GUARDRAILS_PATCH,
  INVALID_TOOL_CALLS_PATCH,
  DECISION_RULES_PATCH,
  SIGNED_DECISIONS_PATCH,
  TRUST_SCOPE_PATCH,
  type RunPatches,
} from './run-patches.js';

/** The patches a run decides once at its start (one marker each for runs that take them). */
export interface StartPatches {
  readonly continueAsNew: boolean;
  readonly guardrails: boolean;
  readonly signedDecisions: boolean;
  readonly graphNodeChecks: boolean;
  readonly eventEnvelope: boolean;
  /** Tenant and delegation scope of signed decisions (`decision-token.ts`, `scoped`). */
  readonly trustScope: boolean;
  /** Goal runs: invalid tool calls are reported to the model (`INVALID_TOOL_CALLS_PATCH`). */
  readonly invalidToolCalls: boolean;
  /** `policy.decided` events name the rules that decided (`DECISION_RULES_PATCH`). */
  readonly decisionRules: boolean;
}

/**
 * In this order: recorded histories have the continue-as-new marker before the guardrails one. The
 * graph node checks are asked only for a graph profile (`graph`); the event envelope next; the trust
 * scope next, only for a run that checks signed decisions; the invalid tool calls last, only for a
 * goal run (not `graph`); the decision rules after them, for every run. The last three without a marker
 * when the start memo names them ({@link RunPatches.feature}).
 */
export function decideStartPatches(patches: RunPatches, graph: boolean): StartPatches {
  const continueAsNew = patches.on(CONTINUE_AS_NEW_PATCH);
  const guardrails = patches.on(GUARDRAILS_PATCH);
  const signedDecisions = patches.on(SIGNED_DECISIONS_PATCH);
  const graphNodeChecks = graph && patches.on(GRAPH_NODE_CHECKS_PATCH);
  const eventEnvelope = patches.on(EVENT_ENVELOPE_PATCH);
  const trustScope = signedDecisions && patches.feature(TRUST_SCOPE_PATCH);
  const invalidToolCalls = !graph && patches.feature(INVALID_TOOL_CALLS_PATCH);
  const decisionRules = patches.feature(DECISION_RULES_PATCH);
  return {
    continueAsNew,
    guardrails,
    signedDecisions,
    graphNodeChecks,
    eventEnvelope,
    trustScope,
    invalidToolCalls,
    decisionRules,
  };
}
