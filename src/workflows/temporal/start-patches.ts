import {
  CONTINUE_AS_NEW_PATCH,
  EVENT_ENVELOPE_PATCH,
  GRAPH_NODE_CHECKS_PATCH,
  GUARDRAILS_PATCH,
  INVALID_TOOL_CALLS_PATCH,
  DECISION_RULES_PATCH,
  TOOL_DEFINITION_PIN_PATCH,
  MODEL_CONTEXT_REF_PATCH,
  REQUEST_MORE_INFO_PATCH,
  HUMAN_REQUEST_EXPIRY_PATCH,
  VERSIONED_FACTS_PATCH,
  CONTEXT_PRIORITY_PATCH,
  FAST_PATH_PATCH,
  STEP_CONTRACTS_PATCH,
  DELIVERED_OUTCOME_PATCH,
  WORKER_REFUSAL_PATCH,
  RUN_SEAL_PATCH,
  LEAN_FRAME_PATCH,
  CONFIG_PIN_PATCH,
  START_TOKEN_ACCEPTED_PATCH,
  STEP_FORMAT_V3_PATCH,
  FAST_MODEL_PATCH,
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
  /** Tool calls carry their pinned definition's digest (`TOOL_DEFINITION_PIN_PATCH`). */
  readonly toolDefinitionPin: boolean;
  /** `model.completed` names the context package sent (`MODEL_CONTEXT_REF_PATCH`). */
  readonly modelContextRef: boolean;
  /** Approvers may ask the requester a question (`REQUEST_MORE_INFO_PATCH`). */
  readonly requestMoreInfo: boolean;
  /** Reconcile and input requests expire (`HUMAN_REQUEST_EXPIRY_PATCH`). */
  readonly humanRequestExpiry: boolean;
  /** Versioned facts and fact refs (`VERSIONED_FACTS_PATCH`). */
  readonly versionedFacts: boolean;
  /** Model calls ask for the seed's context priority order (`CONTEXT_PRIORITY_PATCH`). */
  readonly contextPriority: boolean;
  /** Fast reads run as local activities (`FAST_PATH_PATCH`). */
  readonly fastPath: boolean;
  /** Node and step contracts (`STEP_CONTRACTS_PATCH`). */
  readonly stepContracts: boolean;
  /** A budget end after applied writes composes the answer (`DELIVERED_OUTCOME_PATCH`). */
  readonly deliveredOutcome: boolean;
  /** Workers refuse tool calls they cannot serve as pinned; the run reschedules (`WORKER_REFUSAL_PATCH`). */
  readonly workerRefusal: boolean;
  /** A finished run ends with `run.sealed` (`RUN_SEAL_PATCH`). */
  readonly runSeal: boolean;
  /** The run's frame without its own deadline scope and outer flush scope (`LEAN_FRAME_PATCH`). */
  readonly leanFrame: boolean;
  /** The run pins its configuration run-scoped; workers refuse calls under another (`CONFIG_PIN_PATCH`). */
  readonly configPin: boolean;
  /** The start token is judged at the server's accept time (`START_TOKEN_ACCEPTED_PATCH`). */
  readonly startTokenAccepted: boolean;
  /** Step activities in the third step format, `callModelV3` and `runToolV3` (`STEP_FORMAT_V3_PATCH`). */
  readonly stepFormatV3: boolean;
  /** Model calls on a route declaring `fast` are tried first as local activities (`FAST_MODEL_PATCH`). */
  readonly fastModel: boolean;
}

/**
 * In this order: recorded histories have the continue-as-new marker before the guardrails one. The
 * graph node checks are asked only for a graph profile (`graph`); the event envelope next; the trust
 * scope next, only for a run that checks signed decisions; the invalid tool calls last, only for a
 * goal run (not `graph`); the decision rules, the tool definition pin, the model context ref, the
 * request for more information, the human request expiry, the versioned facts, the context
 * priority, the fast path, the step contracts, the delivered outcome, the worker refusal, the run
 * seal, the lean frame, the config pin, the start token's accept time, the step format and the fast
 * model routes after them, for every run. The last nineteen without a marker when the start memo names
 * them
 * ({@link RunPatches.feature}).
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
  const toolDefinitionPin = patches.feature(TOOL_DEFINITION_PIN_PATCH);
  const modelContextRef = patches.feature(MODEL_CONTEXT_REF_PATCH);
  const requestMoreInfo = patches.feature(REQUEST_MORE_INFO_PATCH);
  const humanRequestExpiry = patches.feature(HUMAN_REQUEST_EXPIRY_PATCH);
  const versionedFacts = patches.feature(VERSIONED_FACTS_PATCH);
  const contextPriority = patches.feature(CONTEXT_PRIORITY_PATCH);
  const fastPath = patches.feature(FAST_PATH_PATCH);
  const stepContracts = patches.feature(STEP_CONTRACTS_PATCH);
  const deliveredOutcome = patches.feature(DELIVERED_OUTCOME_PATCH);
  const workerRefusal = patches.feature(WORKER_REFUSAL_PATCH);
  const runSeal = patches.feature(RUN_SEAL_PATCH);
  const leanFrame = patches.feature(LEAN_FRAME_PATCH);
  const configPin = patches.feature(CONFIG_PIN_PATCH);
  const startTokenAccepted = patches.feature(START_TOKEN_ACCEPTED_PATCH);
  const stepFormatV3 = patches.feature(STEP_FORMAT_V3_PATCH);
  const fastModel = patches.feature(FAST_MODEL_PATCH);
  return {
    continueAsNew,
    guardrails,
    signedDecisions,
    graphNodeChecks,
    eventEnvelope,
    trustScope,
    invalidToolCalls,
    decisionRules,
    toolDefinitionPin,
    modelContextRef,
    requestMoreInfo,
    humanRequestExpiry,
    versionedFacts,
    contextPriority,
    fastPath,
    stepContracts,
    deliveredOutcome,
    workerRefusal,
    runSeal,
    leanFrame,
    configPin,
    startTokenAccepted,
    stepFormatV3,
    fastModel,
  };
}
