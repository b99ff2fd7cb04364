import { fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';
import { compareWithheld } from './withheld-compare.js';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'budget_exhausted']);

/**
 * The two records agree (docs/evidence-chain.md): the Temporal history and the evidence store.
 * - `history.unavailable`: no history to compare (Temporal no longer has the run): not verified;
 * - `history.unreadable`: payloads a codec encrypted (verify where the codec is configured);
 * - `history.result_missing`: a tool result in the history that the store does not hold;
 * - `history.result_mismatch`: a stored result whose status, output or external id is not the one
 *   the history recorded;
 * - `history.artifact_mismatch`: a stored artifact whose data is not the one the history recorded;
 * - `history.status_mismatch`: the workflow's end and the last status the events record differ;
 * - `history.ok`.
 * Values withheld in a bundle are compared by their tags (`compareWithheld`); a position withheld in
 * one copy only (a codec's payload decoded after the export) is counted in the detail, never passed
 * silently.
 */
export function checkHistory(input: ProofInput): ProofCheck {
  const h = input.history;
  if (!h) return fail('history', 'history.unavailable', 'no Temporal history to compare the store with');
  if (h.unreadable > 0)
    return fail(
      'history',
      'history.unreadable',
      `${h.unreadable} payloads are encoded (a codec): not readable here`,
    );
  let masked = 0;
  const agree = (stored: unknown, recorded: unknown): boolean => {
    const c = compareWithheld(stored ?? null, recorded ?? null);
    masked += c.masked;
    return c.same;
  };
  for (const r of h.toolResults) {
    const inv = input.invocations.find((i) => i.seq === r.seq);
    const stored = inv?.results.find((s) => r.attempt === undefined || s.attempt === r.attempt);
    if (!stored) return fail('history', 'history.result_missing', `#${r.seq} (${r.tool}): no stored result`);
    const same =
      stored.status === r.status && agree(stored.externalId, r.externalId) && agree(stored.output, r.output);
    if (!same)
      return fail(
        'history',
        'history.result_mismatch',
        `#${r.seq} (${r.tool}): the stored result is not the recorded one`,
      );
    for (const a of r.artifacts) {
      const kept = input.artifacts.find((s) => s.id === a.id);
      if (!kept || !agree(kept.data, a.data))
        return fail(
          'history',
          'history.artifact_mismatch',
          `artifact ${a.id} is not the one the history recorded`,
        );
    }
  }
  const statuses = input.events
    .filter((e) => e.type === 'state.transitioned')
    .map((e) => String(e.data.toStatus));
  const last = statuses.at(-1);
  const ended = last !== undefined && TERMINAL.has(last) ? last : undefined;
  if (ended !== h.terminalStatus)
    return fail(
      'history',
      'history.status_mismatch',
      `the history ends ${h.terminalStatus ?? 'open'}, the events ${ended ?? 'open'}`,
    );
  return pass(
    'history',
    'history.ok',
    `${h.toolResults.length} tool results and the end (${h.terminalStatus ?? 'open'}) agree${masked > 0 ? `; ${masked} value(s) withheld in one record only, compared by position` : ''}`,
  );
}
