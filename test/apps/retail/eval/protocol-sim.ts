import type { ModelMessage, ModelProvider } from '../../../../src/index.js';
import { goldAnswer, type GoldScript } from '../../../../apps/retail/eval/gold-model.js';
import { retailDomainSpecs } from '../../../../apps/retail/workflow/retail-domains.js';

/**
 * A stand-in of the routed profile's side of the protocol, for tests only: it builds the shared
 * transcript (markers, assistant tool calls, tool results) and asks the gold model, checking that a
 * repeated request (an activity retry) gets the same answer. Not the real profile.
 */
export type ModelRequest = Parameters<ModelProvider['stream']>[0];

const DOMAIN_TOOLS = new Map(retailDomainSpecs().map((d) => [d.id, d.tools]));

export function toolsOf(domain: string): ModelRequest['tools'] {
  return (DOMAIN_TOOLS.get(domain) ?? []).map((name) => ({
    name,
    version: 'v1',
    description: name,
    parameters: { type: 'object' },
  }));
}

let calls = 0;

/** A request of `purpose` over `messages`. */
export function request(
  purpose: ModelRequest['purpose'],
  messages: ModelMessage[],
  extra: Partial<ModelRequest> = {},
): ModelRequest {
  calls += 1;
  return { callId: `call-${calls}`, purpose, model: 'gold/test', messages: [...messages], ...extra };
}

/** Ask twice (a retry) and insist on the same answer. */
export function ask(script: GoldScript, req: ModelRequest): NonNullable<ReturnType<typeof goldAnswer>> {
  const a = goldAnswer(script, req);
  const b = goldAnswer(script, structuredClone(req));
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('the gold model is not stateless');
  if (a === undefined) throw new Error(`no answer for ${req.purpose}`);
  return a;
}

export interface PlanStep {
  step_id: string;
  objective: string;
  capability: string;
  dependencies: string[];
  success_condition: { fact: string; op: string; value: unknown }[];
  failure_route: string;
  max_attempts: number;
  gate?: string;
}

/** What a simulated run did. */
export interface SimResult {
  readonly messages: ModelMessage[];
  readonly plans: { plan_id: string; steps: PlanStep[] }[];
  readonly routes: string[];
  readonly toolCalls: { name: string; args: Record<string, unknown> }[];
  readonly final: string;
}

/**
 * Play a whole run: plan, then per step a route question and decide calls until the step's text
 * answer; optionally a replan after step `replanAfter` (1-based); then the final answer.
 */
export function simulateRun(script: GoldScript, o: { replanAfter?: number } = {}): SimResult {
  const messages: ModelMessage[] = [{ role: 'user', content: script.goal }];
  const plans: SimResult['plans'] = [];
  const routes: string[] = [];
  const toolCalls: SimResult['toolCalls'] = [];
  const plan = (marker: string) => {
    messages.push({ role: 'user', content: marker });
    const answer = ask(script, request('plan', messages, { outputSchema: { type: 'object' } }));
    messages.push({ role: 'assistant', content: answer.text });
    const doc = JSON.parse(answer.text) as SimResult['plans'][number];
    plans.push(doc);
    return doc.steps;
  };
  let steps = plan('[plan] Plan the request.');
  let done = 0;
  let replanned = false;
  for (let i = 0; i < steps.length; i += 1) {
    const step = steps[i]!;
    messages.push({ role: 'user', content: '[route] Which domain handles the next step?' });
    const route = ask(script, request('route', messages, { outputSchema: { type: 'object' } }));
    messages.push({ role: 'assistant', content: route.text });
    routes.push((JSON.parse(route.text) as { route: string }).route);
    // As the routed profile writes it: the marker, then the objective as data.
    messages.push({
      role: 'user',
      content: `[step: ${step.step_id}] [domain: ${step.capability}] Carry out the plan step whose objective follows.`,
    });
    messages.push({ role: 'user', content: `Objective: ${step.objective}` });
    for (let guard = 0; guard < 50; guard += 1) {
      const a = ask(script, request('decide', messages, { tools: toolsOf(step.capability) }));
      if (!a.toolCall) {
        messages.push({ role: 'assistant', content: a.text });
        break;
      }
      const id = `tc${toolCalls.length}`;
      toolCalls.push({ name: a.toolCall.name, args: a.toolCall.args });
      messages.push({ role: 'assistant', content: '', toolCalls: [{ id, ...a.toolCall }] });
      messages.push({ role: 'tool', toolCallId: id, content: '{"ok":true}' });
    }
    done += 1;
    if (!replanned && o.replanAfter === done) {
      replanned = true;
      steps = plan('[replan] step_failed: the success condition did not hold.');
      i = -1;
    }
  }
  messages.push({ role: 'user', content: '[answer] Answer the customer.' });
  const final = ask(script, request('decide', messages));
  return { messages, plans, routes, toolCalls, final: final.text };
}
