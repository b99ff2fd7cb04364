import { ModelError } from '../../../src/activities/model/errors.js';
import { ZERO_PRICES } from '../../../src/activities/model/pricing.js';
import { runProviderCall } from '../../../src/activities/model/provider-call.js';
import type {
  ModelOutput,
  ModelProvider,
  ModelRequest,
  ModelStreamOptions,
} from '../../../src/activities/model/types.js';
import { RETAIL_DOMAINS } from '../workflow/retail-domains.js';
import { RETAIL_TOOL_VERSION, retailToolName } from '../workflow/retail-tool-names.js';
import { expandCalls, groupSteps, parseObjective, planDocument, type GoldCall } from './gold-plan.js';
import { currentOrderOf, madeCalls, markers, progressOf } from './transcript.js';

/** What one gold model plays: a scenario's calls under a variant. */
export interface GoldScript {
  /** Scenario id (`<taskId>/<variant>`): names the plan. */
  readonly id: string;
  readonly variant: string;
  /** The calls to make, in order (the gold actions, or an adversarial variant's short run). */
  readonly calls: readonly GoldCall[];
  /** Insert the order read before a write on another order (false for variants that must skip it). */
  readonly insertReads: boolean;
  /** Answer the route question ignoring its output schema (a model naming a domain the rules excluded). */
  readonly ignoreRouteSchema?: boolean;
  readonly goal: string;
}

/** One answer: text, or one tool call. */
export interface GoldAnswer {
  readonly text: string;
  readonly toolCall?: { readonly name: string; readonly version: string; readonly args: Record<string, unknown> };
}

/** The calls of the script the run still has to make, given the transcript, and the order its facts hold. */
function remaining(script: GoldScript, req: ModelRequest): { rest: GoldCall[]; order: string | undefined } {
  const made = madeCalls(req.messages);
  const expanded = expandCalls(script.calls, { insertReads: script.insertReads });
  return { rest: expanded.slice(progressOf(expanded, made)), order: currentOrderOf(made) };
}

function planAnswer(script: GoldScript, req: ModelRequest): GoldAnswer {
  const replans = markers(req.messages).filter((m) => m.kind === 'replan').length;
  const prefix = replans === 0 ? '' : `r${replans}-`;
  const { rest, order } = remaining(script, req);
  const steps = groupSteps(rest, prefix);
  const planId = `gold-${script.id}${replans === 0 ? '' : `-r${replans}`}`;
  return { text: JSON.stringify(planDocument(planId, script.goal, steps, order)) };
}

function routeAnswer(script: GoldScript, req: ModelRequest): GoldAnswer {
  const { rest } = remaining(script, req);
  const next = groupSteps(rest)[0];
  return { text: JSON.stringify({ route: next?.domain ?? RETAIL_DOMAINS.escalate }) };
}

function decideAnswer(script: GoldScript, req: ModelRequest): GoldAnswer {
  const all = markers(req.messages);
  const last = all.at(-1);
  if (last?.kind === 'answer' || !req.tools?.length) {
    if (last?.kind === 'answer') {
      return { text: `Your request is handled (${script.calls.length} actions for ${script.id}).` };
    }
    return { text: 'Step done.' };
  }
  const step = [...all].reverse().find((m) => m.kind === 'step');
  if (step === undefined) return { text: 'Step done.' };
  const first = all.find((m) => m.kind === 'step' && m.stepId === step.stepId) ?? step;
  const calls = parseObjective(step.objective ?? '');
  const done = progressOf(calls, madeCalls(req.messages, first.index + 1));
  const next = calls[done];
  if (next === undefined) return { text: 'Step done.' };
  const tool = retailToolName(next.name);
  const offered = req.tools.some((t) => t.name === tool && t.version === RETAIL_TOOL_VERSION);
  if (!offered && req.invalidToolCalls !== 'report') return { text: `I cannot call ${next.name} in this step.` };
  return { text: '', toolCall: { name: tool, version: RETAIL_TOOL_VERSION, args: { ...next.args } } };
}

/**
 * The gold model's answer to one request: a pure function of the script and the request's messages
 * (see the protocol in apps/retail/eval/README.md), so a retried call gets the same answer.
 *
 * @throws ModelError `model.script_no_match` for a purpose the protocol does not use.
 */
export function goldAnswer(script: GoldScript, req: ModelRequest): GoldAnswer {
  switch (req.purpose) {
    case 'plan':
      return planAnswer(script, req);
    case 'route':
      return routeAnswer(script, req);
    case 'decide':
      return decideAnswer(script, req);
    case 'respond':
      return { text: `Your request is handled (${script.id}).` };
    default:
      throw new ModelError('model.script_no_match', `the gold model does not answer purpose ${req.purpose}`, {
        details: { callId: req.callId, purpose: req.purpose },
      });
  }
}

/**
 * A model provider (name `gold`) that plays a retail task's gold actions (or an adversarial variant)
 * through the routed profile's protocol: plans, routes, one tool call per decide answer. Stateless:
 * every answer is derived from the request alone. Emits the same normalized events as the real
 * providers (through `runProviderCall`).
 */
export class GoldModelProvider implements ModelProvider {
  readonly name = 'gold';

  constructor(readonly script: GoldScript) {}

  stream(request: ModelRequest, opts: ModelStreamOptions): Promise<ModelOutput> {
    const init = {
      provider: this.name,
      configuredModel: 'gold',
      prices: ZERO_PRICES,
      mapError: (err: unknown) =>
        new ModelError('model.provider_error', `gold model failed: ${(err as Error).message}`, { cause: err }),
    };
    // A model that ignores its route schema: the answer is read by hand by the router (not validated here).
    let req = request;
    if (this.script.ignoreRouteSchema && request.purpose === 'route') {
      const { outputSchema: _dropped, ...rest } = request;
      req = rest;
    }
    return runProviderCall(init, req, opts, (asm, { req: valid, codec }) => {
      const answer = goldAnswer(this.script, valid);
      if (answer.text) asm.addText(answer.text);
      if (answer.toolCall) {
        const raw = JSON.stringify(answer.toolCall.args);
        asm.addToolCallFragment(0, { id: `${valid.callId}_tc0`, name: codec.encode(answer.toolCall), arguments: raw });
      }
      asm.setStopReason(answer.toolCall ? 'tool_calls' : 'end_turn');
      const chars = valid.messages.reduce((n, m) => n + m.content.length, 0);
      asm.setUsage({ inputTokens: Math.ceil(chars / 4), outputTokens: Math.ceil((answer.text.length + 20) / 4) });
      return Promise.resolve();
    });
  }
}
