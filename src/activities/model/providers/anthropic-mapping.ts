import { ModelError } from '../errors.js';
import { encodeToolName } from '../tool-names.js';
import type { ModelRequest, ModelStopReason } from '../types.js';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';

/**
 * Provider name of the synthetic tool that carries a structured answer. Anthropic has no
 * response-format switch that every compatible endpoint honours, so when a request has an
 * `outputSchema` the model is made to answer by calling this tool with the answer as its input
 * (forced with `tool_choice: tool`, or `any` when real tools are offered too). The gateway turns
 * that call back into the output text; it never appears as a tool call. It cannot clash with a
 * harness tool because encoded harness names always end in `__vN`.
 */
export const ANTHROPIC_STRUCTURED_TOOL = 'harness_structured_output';

/** Default `max_tokens` (required by the Messages API) when the request sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Block = ContentBlockParam;

function toBlocks(req: ModelRequest): { system: string; messages: MessageParam[] } {
  const system: string[] = [];
  const messages: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of req.messages) {
    switch (m.role) {
      case 'system':
        system.push(m.content);
        break;
      case 'user':
        push('user', [{ type: 'text', text: m.content }]);
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
        break;
      case 'assistant': {
        const blocks: Block[] = m.content === '' ? [] : [{ type: 'text', text: m.content }];
        for (const c of m.toolCalls ?? []) {
          blocks.push({ type: 'tool_use', id: c.id, name: encodeToolName(c.name, c.version), input: c.args });
        }
        push('assistant', blocks);
        break;
      }
    }
  }
  return { system: system.join('\n\n'), messages };
}

/**
 * Messages API streaming parameters for a request (see {@link ANTHROPIC_STRUCTURED_TOOL}).
 * `temperature` is not sent: the installed Messages API no longer accepts it.
 */
export function toAnthropicParams(req: ModelRequest, model: string): MessageCreateParamsStreaming {
  const { system, messages } = toBlocks(req);
  const tools: Tool[] = (req.tools ?? []).map((t) => ({
    name: encodeToolName(t.name, t.version),
    description: t.description,
    input_schema: t.parameters as Tool['input_schema'],
  }));
  const params: MessageCreateParamsStreaming = {
    model,
    max_tokens: req.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
    stream: true,
  };
  if (system !== '') params.system = system;
  if (req.outputSchema) {
    if (req.outputSchema.type !== 'object') {
      throw new ModelError(
        'model.invalid_request',
        'with the anthropic provider an outputSchema must have root type "object"',
      );
    }
    const hasTools = tools.length > 0;
    tools.push({
      name: ANTHROPIC_STRUCTURED_TOOL,
      description: 'Give your final answer by calling this tool. Its input is the answer.',
      input_schema: req.outputSchema as Tool['input_schema'],
    });
    params.tool_choice = hasTools ? { type: 'any' } : { type: 'tool', name: ANTHROPIC_STRUCTURED_TOOL };
  }
  if (tools.length > 0) params.tools = tools;
  return params;
}

/** Normalizes a Messages API `stop_reason` (`refusal` is handled as blocked by the provider). */
export function anthropicStopReason(reason: string): ModelStopReason {
  switch (reason) {
    case 'end_turn':
      return 'end_turn';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}
