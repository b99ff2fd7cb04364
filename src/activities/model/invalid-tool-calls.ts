import { sha256Digest } from '../digest.js';
import type { InvalidToolCall, InvalidToolCallCode } from '../../contract/step-io.js';

/**
 * Tool calls the model sent that are not proposals (docs/models.md, "Invalid tool calls"): a name
 * that was not offered, or arguments that are not a JSON object. When the request asks
 * (`invalidToolCalls: 'report'`) the gateway returns them instead of failing the call, bounded: the
 * name as the model sent it (cut), a message written here, the digest and length of the argument
 * text (the text itself stays in the stored deltas, never in the answer).
 */

/** Most invalid calls one answer reports; later ones are left out (each reported one costs the run a step). */
export const MAX_INVALID_TOOL_CALLS = 16;
/** Most characters of a tool name or call id as the model sent it. */
export const MAX_INVALID_NAME_CHARS = 64;

const cut = (s: string): string => s.slice(0, MAX_INVALID_NAME_CHARS);

/** The JSON type of a parsed value, for the message. */
function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : 'a boolean';
}

/**
 * The arguments of a tool call: the parsed object, or why they are not one. An empty text is `{}`
 * (providers send no arguments for a tool without parameters).
 */
export function parseToolArguments(
  raw: string,
):
  | { readonly args: Record<string, unknown> }
  | { readonly code: InvalidToolCallCode; readonly kind?: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw.trim() === '' ? '{}' : raw);
  } catch {
    return { code: 'tool.arguments_not_json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { code: 'tool.arguments_not_object', kind: jsonKind(value) };
  return { args: value as Record<string, unknown> };
}

/** One invalid call as the answer reports it. `tool`: the offered tool (`name@version`) the name stands for. */
export function invalidToolCall(o: {
  readonly id: string;
  readonly providerName: string;
  readonly tool?: string;
  readonly code: InvalidToolCallCode;
  readonly raw: string;
  /** The JSON type of arguments that are not an object. */
  readonly kind?: string;
}): InvalidToolCall {
  const name = cut(o.providerName);
  const shown = JSON.stringify(name);
  const message =
    o.code === 'tool.not_offered'
      ? `the tool ${shown} was not offered in this request and nothing was run; call only the tools offered`
      : o.code === 'tool.arguments_not_json'
        ? `the arguments of ${shown} are not valid JSON (${o.raw.length} characters) and nothing was run; send one JSON object that matches the tool's parameters`
        : `the arguments of ${shown} are ${o.kind ?? 'not an object'}, not a JSON object, and nothing was run; send one JSON object that matches the tool's parameters`;
  return {
    id: cut(o.id),
    name,
    ...(o.tool !== undefined ? { tool: o.tool } : {}),
    code: o.code,
    message,
    argsDigest: sha256Digest(o.raw),
    argsChars: o.raw.length,
  };
}
