import { RUN_SEALED_EVENT } from '../../contract/chain-head.js';
import type { ChainLinkRow } from './check-chain.js';
import { headClaimsOf } from './head-claims.js';
import { fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';

/** The start feature whose runs end with `run.sealed` (run-patches.ts `RUN_SEAL_PATCH`). */
export const RUN_SEAL_FEATURE = 'agent-run-seal-v1';

/**
 * The run's seal (docs/evidence-chain.md, "The seal"): a finished run since `agent-run-seal-v1` ends
 * with one `run.sealed` event, whose signed head (`at: 'seal'`) is the chain hash of that event.
 * - `seal.missing`: the run took the seal and finished (its history completed) without one;
 * - `seal.mismatch`: a seal that is not the run's last event, counts other events than stand before
 *   it, names another status than the history's, or whose signed seal is not the chain's hash there;
 * - `seal.unsigned`: a seal no signed head covers (the worker had no attestation key);
 * - `seal.unavailable`: no seal and no history to tell whether the run took it;
 * - `seal.ok`; `seal.open` (passes): a run that has not finished, or from before the seal.
 */
export function checkSeal(input: ProofInput, rows: readonly ChainLinkRow[]): ProofCheck {
  const seals = input.events.filter((e) => e.type === RUN_SEALED_EVENT);
  const h = input.history;
  const seal = seals[0];
  if (seal === undefined) {
    if (!h)
      return fail('seal', 'seal.unavailable', 'no seal, and no history to tell whether the run takes one');
    if (h.features.has(RUN_SEAL_FEATURE) && h.terminalStatus !== undefined)
      return fail(
        'seal',
        'seal.missing',
        `the run finished ${h.terminalStatus} without its run.sealed event`,
      );
    return pass(
      'seal',
      'seal.open',
      h.features.has(RUN_SEAL_FEATURE) ? 'the run has not finished' : 'a run from before the seal',
    );
  }
  const last = input.events.at(-1);
  if (seals.length > 1 || last?.seq !== seal.seq)
    return fail('seal', 'seal.mismatch', `events stand after the seal at #${seal.seq}`);
  if (seal.data.events !== seal.seq - 1)
    return fail(
      'seal',
      'seal.mismatch',
      `the seal counts ${String(seal.data.events)} events, ${seal.seq - 1} stand before it`,
    );
  if (h?.terminalStatus !== undefined && seal.data.status !== h.terminalStatus)
    return fail(
      'seal',
      'seal.mismatch',
      `the seal says ${String(seal.data.status)}, the history ${h.terminalStatus}`,
    );
  const signed = headClaimsOf(h?.heads ?? [], input.runId).filter((c) => c.at === 'seal');
  if (signed.length === 0) return fail('seal', 'seal.unsigned', `no signed head seals event #${seal.seq}`);
  const hash = rows.find((r) => r.seq === seal.seq)?.chainHash;
  if (signed.some((c) => c.seq !== seal.seq || c.head !== hash))
    return fail('seal', 'seal.mismatch', `the signed seal is not the chain's hash at #${seal.seq}`);
  return pass(
    'seal',
    'seal.ok',
    `sealed ${String(seal.data.status)} at #${seal.seq} after ${seal.seq - 1} events`,
  );
}
