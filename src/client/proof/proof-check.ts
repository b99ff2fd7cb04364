import type { InvocationRecord, StoredArtifact, StoredEvent } from '../../contract/store-records.js';
import type { HistoryFacts } from './history-facts.js';

/**
 * One line of `harness verify`: which check, whether it passed, a stable reason code and a sentence
 * for a person. A check that could not be made (missing input) is a failure with its own code, never
 * a pass.
 */
export interface ProofCheck {
  readonly check: ProofCheckName;
  readonly ok: boolean;
  readonly code: string;
  readonly detail: string;
}

/** The checks of the verifier (docs/evidence-chain.md, "What the verifier checks"). */
export type ProofCheckName =
  | 'chain'
  | 'heads'
  | 'seal'
  | 'commits'
  | 'writes'
  | 'artifacts'
  | 'decisions'
  | 'policy'
  | 'history'
  | 'commitments'
  | 'erasures';

/** A passing check. */
export function pass(check: ProofCheckName, code: string, detail: string): ProofCheck {
  return { check, ok: true, code, detail };
}

/** A failing check. */
export function fail(check: ProofCheckName, code: string, detail: string): ProofCheck {
  return { check, ok: false, code, detail };
}

/** What every check reads: the run's records, decoded, and the facts of its Temporal history. */
export interface ProofInput {
  readonly runId: string;
  /** The stored events, decoded from the chain's bytes, in sequence order. */
  readonly events: readonly StoredEvent[];
  readonly invocations: readonly InvocationRecord[];
  readonly artifacts: readonly StoredArtifact[];
  /** `undefined`: no history (Temporal no longer has it); the checks that need it fail. */
  readonly history: HistoryFacts | undefined;
  /** Digest of the approver registry the auditor trusts (`--principals`), when given. */
  readonly trustedRegistryDigest?: string;
}

/** The data of the events of `type`, in order. */
export function dataOf(input: ProofInput, type: string): Record<string, unknown>[] {
  return input.events.filter((e) => e.type === type).map((e) => e.data);
}
