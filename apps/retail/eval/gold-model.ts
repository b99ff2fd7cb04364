import {
  parseModelScript,
  ScriptedProvider,
  type ModelOutput,
  type ModelProvider,
} from '../../../src/index.js';
import { RETAIL_DOMAINS } from '../workflow/retail-domains.js';
import { RETAIL_TOOL_VERSION, retailToolName } from '../workflow/retail-tool-names.js';
import { expandCalls, groupSteps, parseObjective, planDocument, type GoldCall } from './gold-plan.js';
import { currentOrderOf, madeCalls, markers, progressOf } from './transcript.js';

type ModelRequest = Parameters<ModelProvider['stream']>[0];
type ModelStreamOptions = Parameters<ModelProvider['stream']>[1];

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
  readonly toolCall?: {
    readonly name: string;
    readonly version: string;
    readonly args: Record<string, unknown>;
  };
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
  if (!offered && req.invalidToolCalls !== 'report')
    return { text: `I cannot call ${next.name} in this step.` };
  return { text: '', toolCall: { name: tool, version: RETAIL_TOOL_VERSION, args: { ...next.args } } };
}

/**
 * The gold model's answer to one request: a pure function of the script and the request's messages
 * (the protocol is in apps/retail/eval/README.md), so a retried call gets the same answer. Undefined
 * for a purpose the protocol does not use.
 */
export function goldAnswer(script: GoldScript, req: ModelRequest): GoldAnswer | undefined {
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
      return undefined;
  }
}

/**
 * A model provider (name `gold`) that plays a retail task's gold actions (or an adversarial variant)
 * through the routed profile's protocol: plans, routes, one tool call per decide answer. Stateless:
 * every answer is derived from the request alone. Each answer is played by a one-shot
 * `ScriptedProvider`, so it emits the same normalized events as the real providers (provider name
 * `scripted` in them).
 */
export class GoldModelProvider implements ModelProvider {
  readonly name = 'gold';

  constructor(readonly script: GoldScript) {}

  stream(request: ModelRequest, opts: ModelStreamOptions): Promise<ModelOutput> {
    // A model that ignores its route schema: the router reads the answer by hand (nothing validates it here).
    let req = request;
    if (this.script.ignoreRouteSchema && request.purpose === 'route') {
      const { outputSchema: _dropped, ...rest } = request;
      req = rest;
    }
    // The answer, played by a one-shot scripted provider (its events, tool-name encoding and checks);
    // a purpose the protocol does not use gets an empty script: `model.script_no_match`.
    const answer = goldAnswer(this.script, req);
    const script = parseModelScript(
      answer === undefined
        ? { entries: [] }
        : {
            entries: [],
            fallback: { text: answer.text, toolCalls: answer.toolCall ? [answer.toolCall] : [] },
          },
      `gold/${this.script.id}`,
    );
    return new ScriptedProvider(script).stream(req, opts);
  }
}
