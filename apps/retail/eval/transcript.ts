import { isDeepStrictEqual } from 'node:util';
import type { ModelMessage } from '../../../src/index.js';
import { isWriteTool, orderOfCall, type GoldCall } from './gold-plan.js';

/**
 * Reading a run's shared model transcript (the request's `messages`): the tool calls the model made so
 * far, the profile's marker messages, and how far a call list has got. Pure functions of the messages,
 * so a model built on them answers a retried call the same way.
 */

/** The markers the routed profile puts at the start of its trusted user messages. */
export type MarkerKind = 'plan' | 'replan' | 'route' | 'step' | 'answer';

/** A marker message: its kind, its index in `messages`, and for a step its id, domain and objective. */
export interface Marker {
  readonly kind: MarkerKind;
  readonly index: number;
  readonly stepId?: string;
  readonly domain?: string;
  readonly objective?: string;
}

const STEP = /^\[step: ([^\]]+)\] \[domain: ([^\]]+)\] ?([\s\S]*)$/;

/** The marker of one message, if it is a user or system message that starts with one. */
export function markerOf(message: ModelMessage, index: number): Marker | undefined {
  if (message.role !== 'user' && message.role !== 'system') return undefined;
  const text = message.content.trimStart();
  const step = STEP.exec(text);
  if (step) return { kind: 'step', index, stepId: step[1]!, domain: step[2]!, objective: step[3]!.trim() };
  for (const kind of ['plan', 'replan', 'route', 'answer'] as const) {
    if (text.startsWith(`[${kind}]`)) return { kind, index };
  }
  return undefined;
}

/**
 * Every marker message, in order. A step's objective is the one that follows its marker in a data
 * message (`Objective: …`, the routed profile shows a model's text apart from its own markers), else
 * the marker's own text after the domain.
 */
export function markers(messages: readonly ModelMessage[]): Marker[] {
  return messages.flatMap((m, i) => {
    const marker = markerOf(m, i);
    if (marker?.kind !== 'step') return marker ?? [];
    const next = messages[i + 1];
    const at = next?.role === 'user' ? next.content.indexOf(OBJECTIVE) : -1;
    return at < 0 ? marker : { ...marker, objective: next!.content.slice(at + OBJECTIVE.length).trim() };
  });
}

const OBJECTIVE = 'Objective: ';

/** The last marker message, if any. */
export function lastMarker(messages: readonly ModelMessage[]): Marker | undefined {
  return markers(messages).at(-1);
}

/** The benchmark name of a harness retail tool name (`retail.cancel_pending_order` -> `cancel_pending_order`). */
export function benchmarkName(tool: string): string {
  return tool.startsWith('retail.') ? tool.slice('retail.'.length) : tool;
}

/** The tool calls of the assistant messages from index `from` on, in order, by benchmark name. */
export function madeCalls(messages: readonly ModelMessage[], from = 0): GoldCall[] {
  return messages
    .slice(from)
    .flatMap((m) =>
      m.role === 'assistant'
        ? (m.toolCalls ?? []).map((c) => ({ name: benchmarkName(c.name), args: c.args }))
        : [],
    );
}

/** Whether two calls have the same name and deep-equal arguments. */
export function sameCall(a: GoldCall, b: GoldCall): boolean {
  return a.name === b.name && isDeepStrictEqual(a.args, b.args);
}

/**
 * How many of `expected` were made, in order, among `made` (each expected call matched by the first
 * later equal call; other calls in between are skipped).
 */
export function progressOf(expected: readonly GoldCall[], made: readonly GoldCall[]): number {
  let done = 0;
  for (const call of made) {
    if (done < expected.length && sameCall(expected[done]!, call)) done += 1;
  }
  return done;
}

/** The order the run's facts hold after `made`: the order of the last `get_order_details` or order write. */
export function currentOrderOf(made: readonly GoldCall[]): string | undefined {
  let order: string | undefined;
  for (const c of made) {
    if (c.name === 'get_order_details' || (isWriteTool(c.name) && orderOfCall(c) !== undefined))
      order = orderOfCall(c);
  }
  return order;
}
