import { headClaimsOf } from './head-claims.js';
import { RUN_SEAL_FEATURE } from './check-seal.js';
import { fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';

/**
 * Heads at the commit points (docs/evidence-chain.md, "Commit points"), for runs since
 * `agent-run-seal-v1` whose workers signed heads: every write whose tool activity completed (its
 * result is in the history) has a head signed after its intent was stored and before its executor ran
 * (`write.before`, covering its `tool.authorized` and the policy decision before it), and one after
 * its result when its executor recorded one (`write.after`). The heads ride on the activity's result:
 * an attempt whose worker was lost returned none, and the next head covers its intent.
 * - `commits.write_unsigned`: a write without its `write.before` head, or an executor's result
 *   without its `write.after` head;
 * - `commits.decision_uncovered`: a write's `write.before` head that does not cover its authorization;
 * - `commits.ok`; `commits.not_applicable` (passes): a run from before the seal, or no signed heads (the
 *   `heads` check fails those).
 */
export function checkCommitPoints(input: ProofInput): ProofCheck {
  const h = input.history;
  const claims = headClaimsOf(h?.heads ?? [], input.runId);
  if (!h?.features.has(RUN_SEAL_FEATURE) || claims.length === 0)
    return pass(
      'commits',
      'commits.not_applicable',
      'a run from before commit points, or without signed heads',
    );
  const authorized = new Map<number, number>();
  for (const e of input.events)
    if (e.type === 'tool.authorized' && typeof e.data.seq === 'number') authorized.set(e.data.seq, e.seq);
  const completed = new Set(h.toolResults.map((r) => r.seq));
  let writes = 0;
  for (const inv of input.invocations) {
    if (inv.intents[0]?.effect !== 'write' || !completed.has(inv.seq)) continue;
    writes += 1;
    const before = claims.filter((c) => c.at === 'write.before' && c.call === inv.seq);
    if (before.length === 0)
      return fail('commits', 'commits.write_unsigned', `write #${inv.seq} has no head signed before it ran`);
    const at = authorized.get(inv.seq);
    if (at === undefined || !before.some((c) => c.seq >= at))
      return fail(
        'commits',
        'commits.decision_uncovered',
        `no head before write #${inv.seq} covers its authorization`,
      );
    const executed = inv.results.some((r) => r.source === 'executor');
    if (executed && !claims.some((c) => c.at === 'write.after' && c.call === inv.seq))
      return fail(
        'commits',
        'commits.write_unsigned',
        `write #${inv.seq} has no head signed after its result`,
      );
  }
  return pass('commits', 'commits.ok', `${writes} writes signed before and after, their decisions covered`);
}
