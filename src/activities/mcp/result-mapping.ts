import type { ToolExecution } from '../../contract/tool.js';
import { canonicalJson } from '../../contract/canonical-json.js';
import { McpToolError } from './errors.js';

/** Default bound of the text a call returns, in UTF-8 bytes. */
export const DEFAULT_MAX_OUTPUT_BYTES = 32 * 1024;
/** At most this many non-text content blocks are described in the output. */
const MAX_DESCRIBED_BLOCKS = 20;
/** Error text kept from an `isError` result, in characters. */
const MAX_ERROR_TEXT = 2000;

/** The parts of an MCP `tools/call` result the adapter reads. */
export interface McpCallResult {
  readonly content?: readonly Record<string, unknown>[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/**
 * Maps an MCP call result to a bounded {@link ToolExecution}. The output is
 * `{ text, truncated, textBytes, blocks, structuredContent? }`:
 * - `text`: the text blocks (and embedded text resources) joined by newlines, cut to `maxOutputBytes`
 *   UTF-8 bytes; when cut, `truncated` is true and the text ends with a note saying how much was shown;
 * - `textBytes`: the size of the full text;
 * - `blocks`: type (and mime type or uri) of up to 20 non-text blocks (images, audio, links, blobs),
 *   whose data is never copied;
 * - `structuredContent`: included only when its JSON fits in the bytes the text left unused,
 *   otherwise `structuredContentOmitted: true`.
 *
 * @throws {McpToolError} `mcp.tool_error` when the result has `isError: true` (bounded error text in details).
 */
export function mapMcpResult(mcpTool: string, result: McpCallResult, maxOutputBytes: number): ToolExecution {
  const texts: string[] = [];
  const blocks: Record<string, unknown>[] = [];
  for (const block of result.content ?? []) {
    const text = blockText(block);
    if (text !== undefined) texts.push(text);
    else if (blocks.length < MAX_DESCRIBED_BLOCKS) blocks.push(describeBlock(block));
  }
  const full = texts.join('\n');
  if (result.isError === true)
    throw new McpToolError(mcpTool, full.slice(0, MAX_ERROR_TEXT) || 'no error text');
  const textBytes = Buffer.byteLength(full, 'utf8');
  const truncated = textBytes > maxOutputBytes;
  const text = truncated
    ? `${cutUtf8(full, maxOutputBytes)}\n[output truncated: showed ${maxOutputBytes} of ${textBytes} bytes]`
    : full;
  const output: Record<string, unknown> = { text, truncated, textBytes, blocks };
  if (result.structuredContent !== undefined) {
    const structured = safeCanonical(result.structuredContent);
    const left = maxOutputBytes - Math.min(textBytes, maxOutputBytes);
    if (structured !== undefined && Buffer.byteLength(structured, 'utf8') <= left) {
      output.structuredContent = JSON.parse(structured) as unknown;
    } else output.structuredContentOmitted = true;
  }
  return { output };
}

function blockText(block: Record<string, unknown>): string | undefined {
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  const resource = block.resource as Record<string, unknown> | undefined;
  if (block.type === 'resource' && typeof resource?.text === 'string') return resource.text;
  return undefined;
}

function describeBlock(block: Record<string, unknown>): Record<string, unknown> {
  const described: Record<string, unknown> = { type: String(block.type).slice(0, 40) };
  const resource = block.resource as Record<string, unknown> | undefined;
  for (const [key, value] of [
    ['mimeType', block.mimeType ?? resource?.mimeType],
    ['uri', block.uri ?? resource?.uri],
    ['name', block.name],
  ] as const) {
    if (typeof value === 'string') described[key] = value.slice(0, 300);
  }
  return described;
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `bytes` (never splits a character). */
function cutUtf8(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  let end = Math.min(bytes, encoded.length);
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}

function safeCanonical(value: unknown): string | undefined {
  try {
    return canonicalJson(value);
  } catch {
    return undefined;
  }
}
