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
