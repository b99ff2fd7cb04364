import { SUPPORTED_MASKS } from '../guardrails/obligations.js';
import type { PolicyFacts } from '../policy/policy.js';

/**
 * Policy obligations the harness enforces for runs that check signed decisions (docs/authorization.md).
 * Every obligation a decision carries is one of these, or the call is denied (fail closed):
 * - `mask.phone|email|id_number`: applied to the output by the output guardrail (another mask is unknown);
 * - `limit.refund_amount=<n>`: applied to the output by the output guardrail;
 * - `verify.<fact>`: the run must hold the verified fact `<fact>` with value `true`;
 * - `confirm.user.*`: the run's customer confirms the call (its own decision kind) before dispatch;
 * - `log.audit.*`: an audit record naming the deciding principals is stored before the effect.
 */
export type ObligationKind = 'output' | 'verify' | 'confirm_user' | 'audit' | 'unknown';

export function obligationKind(obligation: string): ObligationKind {
  if (obligation.startsWith('mask.'))
    return (SUPPORTED_MASKS as readonly string[]).includes(obligation.slice(5)) ? 'output' : 'unknown';
  if (/^limit\.refund_amount=\d{1,12}(?:\.\d{1,2})?$/.test(obligation)) return 'output';
  if (obligation.startsWith('verify.')) return 'verify';
  if (obligation.startsWith('confirm.user.')) return 'confirm_user';
  if (obligation.startsWith('log.audit.')) return 'audit';
  return 'unknown';
}

/** Why obligations deny a call before anyone is asked, if they do. */
export interface ObligationDenial {
  readonly code: 'obligation.unknown' | 'obligation.unverified';
  readonly obligation: string;
  readonly message: string;
}

/**
 * The first obligation that denies the call outright: one the harness does not know, or a
 * `verify.<fact>` whose fact the run does not hold as `true`.
 */
export function deniedByObligations(
  obligations: readonly string[],
  facts: PolicyFacts,
): ObligationDenial | undefined {
  for (const o of obligations) {
    const kind = obligationKind(o);
    if (kind === 'unknown')
      return {
        code: 'obligation.unknown',
        obligation: o,
        message: `the harness cannot enforce obligation ${o}`,
      };
    if (kind === 'verify') {
      const fact = o.slice('verify.'.length);
      if (facts[fact] !== true)
        return {
          code: 'obligation.unverified',
          obligation: o,
          message: `obligation ${o} needs the verified fact ${fact}`,
        };
    }
  }
  return undefined;
}
