import type { ToolDefinition } from '../../contract/tool.js';
import { actionSummary } from './action-summary.js';
import type { HumanGate } from './human-gate.js';
import { obligationKind } from './obligations.js';
import type { RunCore } from './run-core.js';

/**
 * An obligation a signed run meets before dispatch, by waiting: the customer's confirmation, the
 * audit record. Never throws.
 */
export function isMetBeforeDispatch(obligation: string): boolean {
  const kind = obligationKind(obligation);
  return kind === 'confirm_user' || kind === 'audit';
}

/**
 * Signed runs, after the approvals: the customer confirms (`confirm.user.*`), then the audit record
 * naming every deciding principal is stored (`log.audit.*`) before the effect.
 * @returns why the call may not go ahead (the customer rejected it, or the run has no customer to
 *   ask), or undefined.
 * @throws what the customer's wait throws (see `HumanGate.decide`): RunStop(cancelled),
 *   ContinueAsNewRequested or RunStop(failed, `run.history_limit`).
 */
export async function meetObligations(
  core: RunCore,
  gate: HumanGate,
  def: ToolDefinition,
  args: Readonly<Record<string, unknown>>,
  argsDigest: string,
  obligations: readonly string[],
  expiresAt: string | undefined,
): Promise<{ code: string; message: string; details?: Record<string, unknown> } | undefined> {
  const confirmUser = obligations.filter((o) => obligationKind(o) === 'confirm_user');
  let customer: string | undefined;
  if (confirmUser.length > 0) {
    if (gate.requester === undefined)
      return {
        code: 'obligation.no_customer',
        message: `${confirmUser.join(', ')} needs the run's customer (start the run with a userId)`,
      };
    const c = await gate.decide(
      'confirmation',
      {
        decisionType: 'customer_confirmation',
        summary: actionSummary(core.describeAction, def, args),
        riskReasons: confirmUser,
        action: { tool: def.name, version: def.version, args },
      },
      argsDigest,
      confirmUser,
      expiresAt,
      { customer: true },
    );
    if (c.decision === 'rejected') return { code: c.code, message: c.reason, details: { actor: c.actor } };
    customer = c.actor;
  }
  const audits = obligations.filter((o) => obligationKind(o) === 'audit');
  if (audits.length > 0) {
    core.emit('audit.recorded', {
      obligations: audits,
      tool: def.name,
      version: def.version,
      argsDigest,
      approvers: gate.approversOf({ actionId: '', tool: def.name, version: def.version, argsDigest }),
      customer: customer ?? null,
    });
    // Stored before the effect: the record exists even if the call is then lost.
    await core.ports.flushEvents(core.takeOutbox());
  }
  return undefined;
}
