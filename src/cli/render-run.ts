import type { RunDeliveredWrite, RunRouting, RunView } from '../contract/run-view.js';
import type { ExecutionInfo } from './connect.js';
import { brief, table } from './output.js';
import { versionedName } from '../contract/versioned-name.js';

/** The readable `harness show` page of one run. */
export function renderRun(exec: ExecutionInfo, v: RunView): string {
  const out: string[] = [];
  out.push(`run ${exec.workflowId}  (Temporal ${exec.status}, run id ${exec.runId})`);
  out.push(
    `started ${exec.startTime.toISOString()}${exec.closeTime ? `, closed ${exec.closeTime.toISOString()}` : ''}`,
  );
  out.push(
    `status: ${v.status}${v.waitingReason ? `  waiting: ${v.waitingReason}` : ''}  node: ${v.currentNode ?? '-'}  state version: ${v.stateVersion}`,
  );
  const p = v.pendingAction;
  if (p) {
    const target = p.tool ? ` ${versionedName(p.tool, p.version ?? '?')}` : '';
    const inv = p.invocationSeq !== undefined ? ` invocation #${p.invocationSeq}` : '';
    out.push(
      '',
      `pending action: ${p.actionId} (${p.kind}${target}${inv})${p.expiresAt ? `, expires ${p.expiresAt}` : ''}`,
    );
    if (p.obligations?.length) out.push(`  obligations: ${p.obligations.join(', ')}`);
    const h = v.humanRequest;
    if (h) {
      out.push(`  request (${h.decisionType}): ${h.requestSummary}`);
      if (h.verifiedFacts.length) out.push(`  verified facts: ${h.verifiedFacts.join(', ')}`);
      if (h.policyEvidence.length) out.push(`  policy evidence: ${h.policyEvidence.join(', ')}`);
      if (h.riskReasons.length) out.push(`  risks: ${h.riskReasons.join(', ')}`);
      out.push(`  allowed decisions: ${h.allowedDecisions.join(', ')}`);
    }
    out.push(`  decide with: ${decideHint(exec.workflowId, v)}`);
  }
  if (v.decisions?.length) {
    out.push('', 'decisions (verified):');
    out.push(
      indent(
        table(
          ['ACTION', 'DECISION', 'PRINCIPAL', 'KEY', 'AT'],
          v.decisions.map((d) => [d.actionId, d.decision, d.principal, d.keyId, d.at]),
        ),
      ),
    );
  }
  out.push('', 'invocations:');
  out.push(
    v.invocations.length
      ? indent(
          table(
            ['SEQ', 'TOOL', 'EFFECT', 'STATUS', 'EXTERNAL ID', 'RESOLVED BY'],
            v.invocations.map((i) => [
              i.seq,
              versionedName(i.tool, i.version),
              i.effect,
              i.status,
              i.externalId,
              i.resolvedBy,
            ]),
          ),
        )
      : '  (none)',
  );
  out.push('', 'artifacts:');
  out.push(
    v.artifacts.length
      ? indent(
          table(
            ['ID', 'TYPE', 'PROVENANCE', 'EXTERNAL ID', 'VERIFICATION'],
            v.artifacts.map((a) => [
              a.id,
              a.type,
              a.provenance,
              a.externalId,
              a.verification === undefined ? undefined : brief(a.verification, 80),
            ]),
          ),
        )
      : '  (none)',
  );
  const b = v.budget;
  const l = v.limits;
  out.push(
    '',
    `budget: steps ${b.steps}/${l.maxSteps}, model calls ${b.modelCalls}/${l.maxModelCalls}, tool calls ${b.toolCalls}/${l.maxToolCalls}, ` +
      `tokens in ${b.inputTokens}/${l.maxInputTokens} out ${b.outputTokens}/${l.maxOutputTokens}, cost $${b.costUsd.toFixed(4)}/$${l.maxCostUsd}`,
  );
  const ver = v.versions;
  out.push(`versions: profile ${ver.profile}, policy ${ver.policy}, model route ${ver.modelRoute}`);
  out.push(`  tool registry ${ver.toolRegistryDigest}`, `  config ${ver.configDigest}`);
  if (v.routing) out.push(...routingLines(v.routing));
  if (v.completedSteps.length) out.push(`completed steps: ${v.completedSteps.join(', ')}`);
  if (v.terminalReason)
    out.push('', `terminal reason: ${v.terminalReason.code}: ${v.terminalReason.message}`);
  if (v.terminalReason?.outcome === 'delivered') out.push(deliveredLine(v.terminalReason.delivered ?? []));
  if (v.output !== null && v.output !== undefined) out.push(`output: ${brief(v.output, 400)}`);
  return out.join('\n');
}

/** A budget end after applied writes: what the run delivered (docs/runner.md, "Delivered outcome"). */
function deliveredLine(writes: readonly RunDeliveredWrite[]): string {
  const each = writes.map(
    (w) => `#${w.seq} ${w.tool}@${w.version}${w.externalId !== undefined ? ` (${w.externalId})` : ''}`,
  );
  return `delivered: ${each.join(', ')}`;
}

/** A routed run's route and plan: the domain, the changes and replans, each step with its status. */
function routingLines(r: RunRouting): string[] {
  const out = [
    '',
    `route: ${r.domain ?? '-'}  (phase ${r.phase}, ${r.routeChanges} route changes, ${r.replans} replans)`,
  ];
  if (r.plan) {
    out.push(`plan ${r.plan.planId}:`);
    out.push(
      indent(
        table(
          ['STEP', 'DOMAIN', 'STATUS', 'OBJECTIVE'],
          r.plan.steps.map((s) => [s.stepId, s.capability, s.status, brief(s.objective, 60)]),
        ),
      ),
    );
  }
  return out;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

function decideHint(id: string, v: RunView): string {
  const p = v.pendingAction;
  if (!p) return '-';
  if (p.kind === 'reconcile')
    return `harness reconcile ${id} --invocation ${p.invocationSeq ?? '?'} --outcome succeeded|failed|not_applied`;
  if (p.kind === 'input') return `harness input ${id} --value <text>`;
  const a = `--action ${p.actionId}`;
  if (v.humanRequest?.decisionType === 'customer_confirmation')
    return `harness confirm ${id} ${a}  |  harness reject ${id} ${a} --reason "..."  (the customer's key)`;
  return `harness approve ${id} ${a}  |  harness reject ${id} ${a} --reason "..."  (HARNESS_KEY=<your key file>)`;
}
