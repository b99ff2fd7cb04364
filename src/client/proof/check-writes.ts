import { canonicalJson } from '../../contract/canonical-json.js';
import { dataOf, fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';

/**
 * No side effect twice, intent before effect (docs/evidence-chain.md): for every invocation,
 * - `writes.result_without_intent`: a result for an attempt with no intent;
 * - `writes.result_before_intent`: a result recorded before its intent;
 * - `writes.duplicate_result`: two results for one attempt;
 * - `writes.intent_changed`: attempts of one sequence that are not the same call;
 * - `writes.applied_twice`: more than one applied (`succeeded`) attempt of an invocation;
 * - `writes.event_mismatch`: the chained `tool.completed` event and the stored result disagree
 *   (status, external id, artifacts), or an event names a result the store does not hold;
 * - `writes.ok`.
 */
export function checkWrites(input: ProofInput): ProofCheck {
  let applied = 0;
  for (const inv of input.invocations) {
    const seen = new Set<number>();
    const call = inv.intents[0];
    for (const intent of inv.intents) {
      const same = (['tool', 'version', 'effect', 'argsDigest', 'idempotencyKey'] as const).every(
        (k) => intent[k] === call?.[k],
      );
      if (!same) return fail('writes', 'writes.intent_changed', `#${inv.seq}: attempts name different calls`);
    }
    let appliedHere = 0;
    for (const result of inv.results) {
      const intent = inv.intents.find((i) => i.attempt === result.attempt);
      if (!intent)
        return fail(
          'writes',
          'writes.result_without_intent',
          `#${inv.seq}/${result.attempt}: a result without intent`,
        );
      if (Date.parse(result.recordedAt) < Date.parse(intent.recordedAt))
        return fail(
          'writes',
          'writes.result_before_intent',
          `#${inv.seq}/${result.attempt}: result before intent`,
        );
      if (seen.has(result.attempt))
        return fail('writes', 'writes.duplicate_result', `#${inv.seq}/${result.attempt}: two results`);
      seen.add(result.attempt);
      if (result.status === 'succeeded') appliedHere += 1;
    }
    if (appliedHere > 1)
      return fail(
        'writes',
        'writes.applied_twice',
        `#${inv.seq} (${call?.tool}) applied ${appliedHere} times`,
      );
    if (call?.effect === 'write') applied += appliedHere;
  }
  for (const done of dataOf(input, 'tool.completed')) {
    const inv = input.invocations.find((i) => i.seq === done.seq);
    const result = inv?.results.find((r) => r.attempt === (done.activityAttempt ?? r.attempt));
    const agrees =
      result !== undefined &&
      result.status === done.status &&
      (result.externalId ?? null) === (done.externalId ?? null) &&
      canonicalJson(result.artifactIds) === canonicalJson(done.artifactIds ?? []);
    if (!agrees)
      return fail(
        'writes',
        'writes.event_mismatch',
        `tool.completed #${String(done.seq)} and the stored result disagree`,
      );
  }
  const count = input.invocations.length;
  return pass(
    'writes',
    'writes.ok',
    `${count} invocations: intent before result, ${applied} write(s) applied at most once each`,
  );
}
