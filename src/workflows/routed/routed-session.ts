import type { Observation } from '../../contract/observation.js';
import { invalidCallMessages, observationMessage } from '../runner/goal-profile.js';
import type { ToolProposal } from '../runner/ports.js';
import type { RunContext } from '../runner/run-context.js';
import { domainOf, type CapabilityCatalogue } from '../routing/capability-catalogue.js';
import { exclusionOf } from '../routing/domain-admission.js';
import type { FactDeriver } from '../routing/fact-deriver.js';
import { factsLine } from './routed-messages.js';
import type { RoutedState } from './routed-state.js';

/** What a routed run works with: the run, its pinned catalogue, its fact deriver, its bounds and state. */
export interface RoutedRun {
  readonly ctx: RunContext;
  readonly catalogue: CapabilityCatalogue;
  readonly deriveFacts: FactDeriver;
  /** Most model turns in one domain session. */
  readonly maxTurns: number;
  readonly state: RoutedState;
}

/** How a domain session ended. */
export type SessionEnd =
  | { readonly how: 'answered'; readonly text: string }
  | { readonly how: 'turn_limit' }
  /** The verified facts the catalogue speaks of changed (`rerouteOnFacts`), or the domain was left. */
  | { readonly how: 'facts_changed' }
  | { readonly how: 'domain_left' };

/** Bare tool names of the run's current domain (its tools are pinned `name@version`). */
function domainTools(run: RoutedRun): string[] {
  const d = domainOf(run.catalogue, run.state.current ?? '');
  return (d?.tools ?? []).map((t) => t.slice(0, t.lastIndexOf('@')));
}

/**
 * Model turns in the current domain, starting with `run.state.pending`: the model is offered the
 * domain's tools only (as the policy shows them), and a call of any other tool is not run — it is
 * refused (`route.tool_refused`, code `route.tool_outside_domain`) and answered with a rejected
 * observation (adherence enforced, not judged afterwards). After each settled call its trusted result
 * updates the verified facts ({@link applyFacts}). Ends when the model answers without a tool call,
 * after `maxTurns` turns, when the current domain is no longer enterable under the facts, or (with
 * `rerouteOnFacts`) when a fact the catalogue speaks of changed. Messages not yet shown to the model
 * stay in `state.pending`. Throws what `RunContext.model`/`tool` throw (RunStop ends the run).
 */
export async function runSession(run: RoutedRun, rerouteOnFacts: boolean): Promise<SessionEnd> {
  const { ctx, state } = run;
  for (let turn = 0; turn < run.maxTurns; turn++) {
    const decision = await ctx.model('decide', {
      messages: state.pending,
      tools: ctx.visibleTools(domainTools(run)),
      invalidToolCalls: 'report',
    });
    state.pending = [];
    const invalid = decision.invalidToolCalls ?? [];
    if (decision.toolCalls.length === 0 && invalid.length === 0)
      return { how: 'answered', text: decision.text };
    const before = factsLine(run.catalogue, ctx.facts());
    for (const call of decision.toolCalls) {
      const observation = await ctx.tool(call.name, call.args, {
        version: call.version,
        proposalId: call.id,
      });
      state.pending.push(observationMessage(call.id, observation));
      applyFacts(run, call, observation);
    }
    for (const c of invalid) {
      if (c.code === 'tool.not_offered')
        ctx.emit('route.tool_refused', {
          domain: state.current ?? null,
          tool: c.name,
          reasonCode: 'route.tool_outside_domain',
        });
    }
    if (invalid.length)
      state.pending.push(...invalidCallMessages(invalid.map((c) => ctx.invalidToolCall(c))));
    const domain = domainOf(run.catalogue, state.current ?? '');
    if (domain && !domain.fallback && exclusionOf(domain, ctx.facts())) return { how: 'domain_left' };
    if (rerouteOnFacts && factsLine(run.catalogue, ctx.facts()) !== before) return { how: 'facts_changed' };
  }
  return { how: 'turn_limit' };
}

/**
 * Update the run's verified facts from one settled call with the app's deriver: withdraw, then record
 * each changed fact citing the call's first artifact (a call that returned none cannot verify a fact:
 * the runner records `fact.rejected`). A failed call changes nothing; a deriver that throws records
 * `fact.rejected` (`fact.deriver_failed`) and changes nothing. Never throws.
 */
export function applyFacts(run: RoutedRun, call: ToolProposal, observation: Observation): void {
  const { ctx } = run;
  if (observation.status !== 'succeeded') return;
  const facts = ctx.facts();
  let update;
  try {
    update = run.deriveFacts(
      {
        tool: observation.toolName,
        version: observation.toolVersion,
        args: isRecord(call.args) ? call.args : {},
        status: observation.status,
        ...(observation.output !== undefined ? { output: observation.output } : {}),
      },
      facts,
    );
  } catch {
    ctx.emit('fact.rejected', { name: null, seq: observation.seq, code: 'fact.deriver_failed' });
    return;
  }
  for (const name of update.withdraw ?? []) ctx.withdrawFact(name, 'fact.superseded');
  const evidence = observation.artifactIds[0] ?? '';
  for (const [name, value] of Object.entries(update.set ?? {})) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) continue;
    if (ctx.facts()[name] !== value) ctx.recordFact(name, value, evidence);
  }
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
