import { dataOf, fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';

const HUMAN = new Set(['require_confirmation', 'require_human']);

/**
 * Every tool call was allowed by the policy decision recorded for it, under the pinned policy:
 * - `policy.unpinned`: no `run.created` names the run's pinned versions;
 * - `policy.unauthorized_call`: a stored intent with no `tool.authorized` event for its sequence,
 *   tool and argument digest;
 * - `policy.no_decision`: an authorization with no `policy.decided` for its arguments before it;
 * - `policy.version_mismatch`: the decision was made by another policy version than the pinned one;
 * - `policy.not_allowed`: the decision was not `allow`, and no approval of those arguments followed a
 *   `require_confirmation`/`require_human`;
 * - `policy.ok`.
 */
export function checkPolicy(input: ProofInput): ProofCheck {
  const created = dataOf(input, 'run.created')[0];
  const pinned = (created?.versions as { policy?: string } | undefined)?.policy;
  if (pinned === undefined) return fail('policy', 'policy.unpinned', 'no run.created event pins the policy');
  for (const inv of input.invocations)
    for (const intent of inv.intents) {
      const authorized = input.events.some(
        (e) =>
          e.type === 'tool.authorized' &&
          e.data.seq === intent.seq &&
          e.data.tool === intent.tool &&
          e.data.argsDigest === intent.argsDigest,
      );
      if (!authorized)
        return fail(
          'policy',
          'policy.unauthorized_call',
          `#${intent.seq} (${intent.tool}): no authorization recorded`,
        );
    }
  let calls = 0;
  // The latest decision on each argument digest, and whether an approval came after it.
  const latest = new Map<unknown, { data: Record<string, unknown>; approved: boolean }>();
  for (const e of input.events) {
    if (e.type === 'policy.decided') latest.set(e.data.argsDigest, { data: e.data, approved: false });
    if (e.type === 'human.decided' && e.data.decision === 'approved')
      for (const d of latest.values()) d.approved = true;
    if (e.type !== 'tool.authorized') continue;
    calls += 1;
    const at = `#${String(e.data.seq)}`;
    const decision = latest.get(e.data.argsDigest);
    if (!decision) return fail('policy', 'policy.no_decision', `${at}: no policy decision before the call`);
    const version = String(decision.data.policyVersion);
    if (version !== pinned)
      return fail('policy', 'policy.version_mismatch', `${at}: decided by ${version}, pinned ${pinned}`);
    const verdict = String(decision.data.decision);
    if (verdict !== 'allow' && !(HUMAN.has(verdict) && decision.approved))
      return fail('policy', 'policy.not_allowed', `${at}: the policy said ${verdict}`);
  }
  return pass('policy', 'policy.ok', `${calls} tool call(s) allowed by ${pinned}`);
}
