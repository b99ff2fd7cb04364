import type { ServerResponse } from 'node:http';
import { writeSse } from './fake-http-server.js';

/** A Chat Completions stream chunk as the OpenAI wire protocol sends it. */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-fake-1',
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    ...extra,
  };
}

export function usageChunk(prompt: number, completion: number): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-fake-1',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export function toolDelta(
  index: number,
  fields: { id?: string; name?: string; args?: string },
): Record<string, unknown> {
  return {
    tool_calls: [
      {
        index,
        ...(fields.id ? { id: fields.id, type: 'function' } : {}),
        function: {
          ...(fields.name ? { name: fields.name } : {}),
          ...(fields.args !== undefined ? { arguments: fields.args } : {}),
        },
      },
    ],
  };
}

export function done(res: ServerResponse): void {
  writeSse(res, '[DONE]');
  res.end();
}
