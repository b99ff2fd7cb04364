import type { Observation } from '../../contract/observation.js';
import { invalidCallMessages, observationMessage } from '../runner/goal-profile.js';
import type { InvalidToolCall, ToolProposal } from '../runner/ports.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { jsonDigest } from '../../contract/digest.js';
import { versionedName } from '../../contract/versioned-name.js';
import type { RunContext } from '../runner/run-context.js';
import { domainOf, type CapabilityCatalogue } from '../routing/capability-catalogue.js';
import { exclusionOf } from '../routing/domain-admission.js';
import type { FactDeriver, FactUpdate } from '../routing/fact-deriver.js';
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

/** The tools of the run's current domain the policy shows now, in the versions the catalogue pinned. */
function domainTools(run: RoutedRun): ToolDefinition[] {
  const pinned = domainOf(run.catalogue, run.state.current ?? '')?.tools ?? [];
  return run.ctx
    .visibleTools(pinned.map((t) => t.slice(0, t.lastIndexOf('@'))))
    .filter((d) => pinned.includes(versionedName(d.name, d.version)));
}

/** The catalogue's gate in front of `call` in the current domain, as the pipeline's floor (writes only). */
function gateOf(run: RoutedRun, call: ToolProposal): { gate?: 'confirmation' | 'approval' } {
  const pinned = versionedName(call.name, call.version);
  const gate = domainOf(run.catalogue, run.state.current ?? '')?.gates.find((g) => g.tool === pinned);
  return gate ? { gate: gate.kind } : {};
}

/** Whether the run's (non-fallback) domain is no longer enterable under the verified facts. */
function left(run: RoutedRun): boolean {
  const domain = domainOf(run.catalogue, run.state.current ?? '');
  return domain !== undefined && !domain.fallback && exclusionOf(domain, run.ctx.facts()) !== undefined;
}

/** A call of a turn after an earlier call left the domain: answered as not offered, never run. */
function leftDomainCall(call: ToolProposal): InvalidToolCall {
  return {
    id: call.id.slice(0, 64),
    name: call.name.slice(0, 64),
    tool: versionedName(call.name, call.version),
    code: 'tool.not_offered',
    message: 'Not run: an earlier call of this turn changed the facts, and this domain no longer applies.',
    argsDigest: jsonDigest(call.args ?? null),
    argsChars: JSON.stringify(call.args ?? null).length,
  };
}

/**
 * Model turns in the current domain, starting with `run.state.pending`: the model is offered the
 * domain's tools only (as the policy shows them), and a call of any other tool is not run — it is
 * refused (`route.tool_refused`, code `route.tool_outside_domain`) and answered with a rejected
 * observation (adherence enforced, not judged afterwards). After each settled call its trusted result
 * updates the verified facts ({@link applyFacts}). Ends when the model answers without a tool call,
 * after `maxTurns` turns, when the current domain is no longer enterable under the facts (a call of
 * the same turn after the one that left it is not run: `route.tool_refused`, `route.domain_left`), or (with
 * `rerouteOnFacts`) when a fact the catalogue speaks of changed. Messages not yet shown to the model
 * stay in `state.pending`. Throws what `RunContext.model`/`tool` throw (RunStop ends the run).
 */
export async function runSession(run: RoutedRun, rerouteOnFacts: boolean): Promise<SessionEnd> {
  const { ctx, state } = run;
  for (let turn = 0; turn < run.maxTurns; turn++) {
    const decision = await ctx.model('decide', {
      messages: state.pending,
      tools: domainTools(run),
      invalidToolCalls: 'report',
    });
    state.pending = [];
    const reported = decision.invalidToolCalls ?? [];
    if (decision.toolCalls.length === 0 && reported.length === 0)
      return { how: 'answered', text: decision.text };
    const before = factsLine(run.catalogue, ctx.facts());
    const refused: InvalidToolCall[] = [];
    for (const call of decision.toolCalls) {
      if (left(run)) {
        refused.push(leftDomainCall(call));
        ctx.emit('route.tool_refused', {
          domain: state.current ?? null,
          tool: call.name,
          reasonCode: 'route.domain_left',
        });
        continue;
      }
      const observation = await ctx.tool(call.name, call.args, {
        version: call.version,
        proposalId: call.id,
        ...gateOf(run, call),
      });
      state.pending.push(observationMessage(call.id, observation));
      applyFacts(run, call, observation);
    }
    for (const c of reported) {
      if (c.code === 'tool.not_offered')
        ctx.emit('route.tool_refused', {
          domain: state.current ?? null,
          tool: c.name,
          reasonCode: 'route.tool_outside_domain',
        });
    }
    const invalid = [...refused, ...reported];
    if (invalid.length)
      state.pending.push(...invalidCallMessages(invalid.map((c) => ctx.invalidToolCall(c))));
    if (left(run)) return { how: 'domain_left' };
    if (rerouteOnFacts && factsLine(run.catalogue, ctx.facts()) !== before) return { how: 'facts_changed' };
  }
  return { how: 'turn_limit' };
}

/**
 * Update the run's verified facts from one settled call with the app's deriver: withdraw, then record
 * each changed fact citing the call's first artifact (a call that returned none cannot verify a fact:
 * the runner records `fact.rejected`). A failed call changes nothing; a deriver that throws, or answers
 * something that is not a {@link FactUpdate}, records `fact.rejected` (`fact.deriver_failed`) and
 * changes nothing. Never throws.
 */
export function applyFacts(run: RoutedRun, call: ToolProposal, observation: Observation): void {
  const { ctx } = run;
  if (observation.status !== 'succeeded') return;
  let withdraw: string[];
  let set: [string, unknown][];
  try {
    const update: FactUpdate = run.deriveFacts(
      {
        tool: observation.toolName,
        version: observation.toolVersion,
        args: isRecord(call.args) ? call.args : {},
        status: observation.status,
        ...(observation.output !== undefined ? { output: observation.output } : {}),
      },
      ctx.facts(),
    );
    withdraw = [...(update.withdraw ?? [])].filter((n) => typeof n === 'string');
    set = Object.entries(update.set ?? {});
  } catch {
    ctx.emit('fact.rejected', { name: null, seq: observation.seq, code: 'fact.deriver_failed' });
    return;
  }
  for (const name of withdraw) ctx.withdrawFact(name, 'fact.superseded');
  const evidence = observation.artifactIds[0] ?? '';
  for (const [name, value] of set) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    if (ctx.facts()[name] !== value) ctx.recordFact(name, value, evidence);
  }
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
