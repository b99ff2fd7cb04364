import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolCall, ToolContext, ToolExecution, ToolExecutor } from '../../contract/tool.js';
import { McpCallFailedError, McpCancelledError, McpTimeoutError } from './errors.js';
import { mapMcpResult } from './result-mapping.js';
import type { McpCallResult } from './result-mapping.js';

/**
 * JSON-RPC code of the MCP SDK's `ErrorCode.RequestTimeout`. Matched by value (and the error's name),
 * not with `instanceof`, so this module does not load the optional `@modelcontextprotocol/sdk`.
 */
const MCP_REQUEST_TIMEOUT = -32001;

function isMcpTimeout(err: unknown): boolean {
  return (
    err instanceof Error &&
    err.name === 'McpError' &&
    (err as { code?: unknown }).code === MCP_REQUEST_TIMEOUT
  );
}

/** Limits of one MCP tool call. */
export interface McpCallLimits {
  /** The request is cancelled after this many milliseconds. */
  readonly timeoutMs: number;
  /** Text output bound in UTF-8 bytes. */
  readonly maxOutputBytes: number;
}

/**
 * The executor of one mapped MCP tool: sends `tools/call` with the validated arguments, under a
 * timeout and the caller's AbortSignal, heartbeating on server progress notifications, and maps the
 * result with {@link mapMcpResult}. Never retries.
 *
 * Failure semantics (all {@link HarnessError}s): `mcp.tool_error` when the server reports `isError`;
 * `mcp.timeout` after `timeoutMs`; `mcp.cancelled` when `ctx.signal` aborts; `mcp.call_failed` for
 * transport or protocol failures (including calls after the connection closed). After a timeout or
 * cancellation the server may still have applied a write: its outcome is unknown.
 */
export class McpToolExecutor implements ToolExecutor {
  constructor(
    private readonly client: Client,
    private readonly mcpName: string,
    private readonly limits: McpCallLimits,
  ) {}

  async execute(ctx: ToolContext, call: ToolCall): Promise<ToolExecution> {
    if (ctx.signal.aborted) throw new McpCancelledError(this.mcpName);
    let result: McpCallResult;
    try {
      result = (await this.client.callTool({ name: this.mcpName, arguments: { ...call.args } }, undefined, {
        signal: ctx.signal,
        timeout: this.limits.timeoutMs,
        onprogress: (progress) => ctx.heartbeat({ mcpProgress: progress.progress }),
      })) as McpCallResult;
    } catch (err) {
      if (ctx.signal.aborted) throw new McpCancelledError(this.mcpName);
      if (isMcpTimeout(err)) {
        throw new McpTimeoutError(this.mcpName, this.limits.timeoutMs);
      }
      throw new McpCallFailedError(this.mcpName, err instanceof Error ? err.message : String(err));
    }
    return mapMcpResult(this.mcpName, result, this.limits.maxOutputBytes);
  }
}
