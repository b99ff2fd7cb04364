import { createHash } from 'node:crypto';
import type { ProofBundle } from '../../contract/proof-bundle.js';
import type { InvocationRecord, StoredArtifact, StoredEvent } from '../../contract/store-records.js';
import { checkArtifacts } from './check-artifacts.js';
import { checkChain } from './check-chain.js';
import { checkCommitments } from './check-commitments.js';
import { checkErasures } from './check-erasures.js';
import { countWithheld } from './count-withheld.js';
import { checkHeads } from './check-heads.js';
import { checkCommitPoints } from './check-commit-points.js';
import { checkSeal } from './check-seal.js';
import type { AttestationRegistry } from '../../contract/chain-head.js';
import { checkDecisions } from './check-decisions.js';
import { checkHistory } from './check-history.js';
import { checkPolicy } from './check-policy.js';
import { checkWrites } from './check-writes.js';
import { generationsFacts } from './history-facts.js';
import type { ProofCheck, ProofInput } from './proof-check.js';

/** The verifier's answer: every check with its line, and whether all passed. */
export interface ProofReport {
  readonly runId: string;
  readonly ok: boolean;
  readonly checks: readonly ProofCheck[];
}

/** What the auditor brings besides the bundle. */
export interface VerifyOptions {
  /** Digest of the approver registry the auditor trusts; decisions under another registry fail. */
  readonly trustedRegistryDigest?: string;
  /** The attestation keys the auditor trusts; default: the bundle's. */
  readonly attestation?: AttestationRegistry;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const sha256Bytes = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Verify a proof bundle offline (docs/evidence-chain.md, "What the verifier checks"): the chain, its
 * signed heads, the writes, the artifacts, the decisions, the policy, the agreement of the two records
 * and the commitments of erasable values (withheld or opened, and the copies withheld outside the
 * chain, which the comparisons read by their tags), each a line
 * with a reason code. Pure apart from hashing: no network, no store, no clock. Never throws on bad
 * content: what does not hold is a failed check. The later checks read the events the chain holds
 * whatever the chain's verdict, so one tampering may fail several lines; the chain line says first.
 */
export function verifyProofBundle(bundle: ProofBundle, o: VerifyOptions = {}): ProofReport {
  const rows = bundle.chain.events;
  const chain = checkChain(sha256, bundle.runId, rows, bundle.chain.chainStart ?? undefined);
  const events: StoredEvent[] = [];
  for (const row of rows) {
    try {
      events.push(JSON.parse(row.body) as StoredEvent);
    } catch {
      /* reported by the chain check */
    }
  }
  const input: ProofInput = {
    runId: bundle.runId,
    events,
    invocations: bundle.invocations as unknown as InvocationRecord[],
    artifacts: bundle.artifacts as unknown as StoredArtifact[],
    // Every generation's history when the run continued as new, so each result and decision is compared.
    history: bundle.history
      ? generationsFacts([...(bundle.earlierHistories ?? []), bundle.history])
      : undefined,
    ...(o.trustedRegistryDigest !== undefined ? { trustedRegistryDigest: o.trustedRegistryDigest } : {}),
  };
  const checks = [
    chain,
    checkHeads(input, rows, o.attestation ?? bundle.attestation ?? undefined),
    checkSeal(input, rows),
    checkCommitPoints(input),
    checkDecisions(input),
    checkWrites(input),
    checkHistory(input),
    checkArtifacts(input),
    checkPolicy(input),
    checkCommitments(sha256Bytes, events, bundle.erasure, countWithheld(bundle)),
    checkErasures(
      sha256,
      bundle.runId,
      events,
      bundle.erasure,
      o.attestation ?? bundle.attestation ?? undefined,
    ),
  ];
  return { runId: bundle.runId, ok: checks.every((c) => c.ok), checks };
}
