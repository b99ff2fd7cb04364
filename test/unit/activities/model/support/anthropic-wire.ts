import type { ServerResponse } from 'node:http';
import { writeSse } from './fake-http-server.js';

/** Writes one Messages API stream event (`event: <type>` + `data: {...}`). */
export function send(res: ServerResponse, data: Record<string, unknown> & { type: string }): void {
  writeSse(res, data, data.type);
}

export function messageStart(res: ServerResponse, inputTokens: number): void {
  send(res, {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-fake-1',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  });
}

export function textBlock(res: ServerResponse, index: number, parts: string[]): void {
  send(res, { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
  for (const text of parts)
    send(res, { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
  send(res, { type: 'content_block_stop', index });
}

export function toolStart(res: ServerResponse, index: number, id: string, name: string): void {
  send(res, { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } });
}

export function toolJson(res: ServerResponse, index: number, partial: string): void {
  send(res, {
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json: partial },
  });
}

export function messageEnd(res: ServerResponse, stopReason: string, outputTokens: number): void {
  send(res, {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  send(res, { type: 'message_stop' });
  res.end();
}
