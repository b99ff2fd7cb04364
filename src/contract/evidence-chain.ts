import { canonicalJson } from './canonical-json.js';
import { DIGEST_PREFIX } from './digest.js';

/**
 * The tamper-evident evidence record (docs/evidence-chain.md): every stored event of a run carries the
 * hash of the previous one, so changing, dropping or reordering a stored event breaks every hash after
 * it.
 *
 * - `H_i = SHA-256(EVENT_TAG ‖ canonical({ event: E_i, prev: H_{i-1} }))`, where `E_i` is the stored
 *   event exactly as the store keeps it (its canonical JSON, RFC 8785 for the values the harness
 *   stores: run, seq, event id, type, time, producer, attempt, data and the whole envelope) and `prev`
 *   is the hash of the run's previous stored event (by sequence).
 * - The first event's `prev` is the genesis `SHA-256(GENESIS_TAG ‖ canonical({ tenant, workflowId,
 *   firstEventId, previousHead }))`. A run keeps one workflow id and one event sequence across
 *   continue-as-new, so a new generation's first event links to the previous generation's last one;
 *   `previousHead` is `null` for a chain that starts with the run.
 *
 * Hashes are written `sha256:<64 hex>`. Pure: the caller supplies SHA-256 (node:crypto in activities
 * and the CLI), so this module has no Node builtins.
 */
export const CHAIN_EVENT_TAG = 'agent-harness/evidence-event/v1\u0000';
/** Domain tag of the genesis hash (see {@link CHAIN_EVENT_TAG}). */
export const CHAIN_GENESIS_TAG = 'agent-harness/evidence-genesis/v1\u0000';

/** Lowercase hex SHA-256 of the UTF-8 encoding of a string. */
export type Sha256Hex = (text: string) => string;

/** What the genesis hash binds. */
export interface ChainGenesis {
  /** The tenant the run was started for (its first event's `data.tenantId`), `null` when none. */
  readonly tenant: string | null;
  /** The run id: the workflow id, the same across continue-as-new. */
  readonly workflowId: string;
  /** Event id of the run's first stored event. */
  readonly firstEventId: string;
  /** Head of an earlier chain this one continues; `null` for a run's own chain. */
  readonly previousHead: string | null;
}

/** The genesis hash: the `prev` of a run's first event. */
export function genesisHash(sha256: Sha256Hex, g: ChainGenesis): string {
  return DIGEST_PREFIX + sha256(CHAIN_GENESIS_TAG + canonicalJson(g));
}

/**
 * The genesis of a run whose first stored event is `first` (the decoded event): its tenant comes from
 * the event's `data.tenantId` (a `run.started` names the subject), else `null`.
 */
export function genesisOfFirstEvent(first: {
  readonly runId: string;
  readonly eventId: string;
  readonly data: unknown;
}): ChainGenesis {
  const data = first.data as { tenantId?: unknown } | null;
  const tenant = typeof data?.tenantId === 'string' ? data.tenantId : null;
  return { tenant, workflowId: first.runId, firstEventId: first.eventId, previousHead: null };
}

/**
 * The hash of one chained event from its stored canonical body and the previous hash. The preimage is
 * `canonical({ event, prev })`; `body` is already canonical and `"event" < "prev"`, so it is built by
 * concatenation (equal to canonicalJson of the decoded object, tested).
 */
export function eventHash(sha256: Sha256Hex, body: string, prev: string): string {
  return DIGEST_PREFIX + sha256(CHAIN_EVENT_TAG + chainedEventText(body, prev));
}

/** `canonical({ event, prev })` for a canonical `body`. */
export function chainedEventText(body: string, prev: string): string {
  return `{"event":${body},"prev":${JSON.stringify(prev)}}`;
}
