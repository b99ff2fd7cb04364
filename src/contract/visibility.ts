import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * What a run publishes for people and tools to find and read it: its search attributes (registered
 * on the server, see temporal-dev.yml) and its query. Shared by the workflow (which sets them), the
 * client and the CLI (which filter and query). Sandbox-safe.
 */
export const AgentStatusKey = defineSearchAttributeKey('AgentStatus', 'KEYWORD');
export const AgentWaitingReasonKey = defineSearchAttributeKey('AgentWaitingReason', 'KEYWORD');
export const AgentProfileKey = defineSearchAttributeKey('AgentProfile', 'KEYWORD');
/** The tenant and user a run was started for (set at the start, never changed). */
export const AgentTenantKey = defineSearchAttributeKey('AgentTenant', 'KEYWORD');
export const AgentUserKey = defineSearchAttributeKey('AgentUser', 'KEYWORD');

/**
 * The search attributes every run sets: the namespace must have them, with these types, or a start
 * fails (temporal-dev.yml registers them on the dev server; workers and the run service check them).
 */
export const RUN_SEARCH_ATTRIBUTES = [
  AgentStatusKey,
  AgentWaitingReasonKey,
  AgentProfileKey,
  AgentTenantKey,
  AgentUserKey,
] as const;

/** Query names of `agentRun`: `state` answers the RunView (once the run has pinned its tools). */
export const QUERY_NAMES = { state: 'state' } as const;

/**
 * The start memo entry that asks for a **marker-free start** (docs/history-cost.md, "The third
 * baseline"): `startAgentRun` records `{ [MARKER_FREE_START_MEMO_KEY]: MARKER_FREE_START }` and a new
 * execution of such a run takes the second baseline's behaviour without recording its marker (two
 * history events less per run: the marker and the SDK's `TemporalChangeVersion` upsert). It selects
 * nothing else: a run started without it takes the same behaviour with the marker. Values other than
 * {@link MARKER_FREE_START} are ignored.
 */
export const MARKER_FREE_START_MEMO_KEY = 'harnessBaseline';
export const MARKER_FREE_START = 'v3';

/**
 * The start memo entry listing behaviours added after the third baseline that a run takes from its
 * start without recording a patch marker (`RunPatches.feature`): `startAgentRun` writes
 * {@link START_FEATURES}. A run started without it (an older starter) asks each one's `patched()` id
 * at its start instead: one marker, the same behaviour. Unknown entries are ignored.
 */
export const START_FEATURES_MEMO_KEY = 'harnessFeatures';
/** The features this build's starter asks for (each is also a `patched()` id of `agentRun`). */
export const START_FEATURES: readonly string[] = [
  'agent-run-trust-scope-v1',
  'agent-run-invalid-tool-calls-v1',
  'agent-run-decision-rules-v1',
  'agent-run-tool-definition-pin-v1',
  'agent-run-model-context-ref-v1',
  'agent-run-request-more-info-v1',
  'agent-run-human-request-expiry-v1',
  'agent-run-versioned-facts-v1',
  'agent-run-context-priority-v1',
  'agent-run-fast-path-v1',
  'agent-run-step-contracts-v1',
  'agent-run-delivered-outcome-v1',
  'agent-run-worker-refusal-v1',
  'agent-run-seal-v1',
  'agent-run-lean-frame-v1',
  'agent-run-config-pin-v1',
  'agent-run-start-token-accepted-v1',
  'agent-run-step-format-v3',
  'agent-run-fast-model-v1',
];
