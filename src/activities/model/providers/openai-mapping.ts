import { encodeToolName } from '../tool-names.js';
import type { ModelRequest, ModelStopReason } from '../types.js';
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

/** Name given to the JSON schema in `response_format` when the request has an `outputSchema`. */
export const OPENAI_OUTPUT_SCHEMA_NAME = 'harness_output';

function toOpenAiMessages(req: ModelRequest): ChatCompletionMessageParam[] {
  return req.messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      case 'assistant': {
        const calls = m.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: m.content };
        return {
          role: 'assistant',
          content: m.content === '' ? null : m.content,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: encodeToolName(c.name, c.version), arguments: JSON.stringify(c.args) },
          })),
        };
      }
    }
  });
}

/**
 * Chat Completions streaming parameters for a request: tools become functions with provider-safe
 * names, `outputSchema` becomes `response_format: json_schema` (non-strict: the gateway validates
 * the answer itself, so schemas outside OpenAI's strict subset still work), usage is requested
 * in the final chunk.
 */
export function toOpenAiParams(req: ModelRequest, model: string): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model,
    messages: toOpenAiMessages(req),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools && req.tools.length > 0) {
    params.tools = req.tools.map((t) => ({
      type: 'function' as const,
      function: {
        name: encodeToolName(t.name, t.version),
        description: t.description,
        parameters: t.parameters,
      },
    }));
  }
  if (req.outputSchema) {
    params.response_format = {
      type: 'json_schema',
      json_schema: { name: OPENAI_OUTPUT_SCHEMA_NAME, schema: req.outputSchema, strict: false },
    };
  }
  if (req.maxOutputTokens !== undefined) params.max_completion_tokens = req.maxOutputTokens;
  if (req.temperature !== undefined) params.temperature = req.temperature;
  return params;
}

/** Normalizes a Chat Completions `finish_reason`. */
export function openAiStopReason(reason: string): ModelStopReason {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}
