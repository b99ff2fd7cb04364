import { HarnessError } from '../../contract/errors.js';

/** Every error code the MCP adapter raises. */
export const MCP_ERROR_CODES = [
  'mcp.connect_failed',
  'mcp.invalid_mapping',
  'mcp.tool_missing',
  'mcp.narrow_schema_mismatch',
  'mcp.tool_error',
  'mcp.timeout',
  'mcp.cancelled',
  'mcp.call_failed',
] as const;
export type McpErrorCode = (typeof MCP_ERROR_CODES)[number];

/** Base class of MCP adapter errors; `code` is one of {@link MCP_ERROR_CODES}. */
export abstract class McpAdapterError extends HarnessError {
  declare readonly code: McpErrorCode;
  constructor(code: McpErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}

/** `mcp.connect_failed`: the server could not be started, initialised or listed. `details.stderrTail` holds its last stderr output. */
export class McpConnectError extends McpAdapterError {
  constructor(reason: string, stderrTail: string) {
    super('mcp.connect_failed', `could not connect to the MCP server: ${reason}`, { reason, stderrTail });
  }
}

/** `mcp.invalid_mapping`: the trusted mapping is malformed (duplicate harness tool, bad path field pointer, ...). */
export class McpInvalidMappingError extends McpAdapterError {
  constructor(mcpTool: string, reason: string) {
    super('mcp.invalid_mapping', `mapping of MCP tool ${mcpTool}: ${reason}`, { mcpTool, reason });
  }
}

/** `mcp.tool_missing`: the mapping names a tool the server does not offer. */
export class McpToolMissingError extends McpAdapterError {
  constructor(mcpTool: string, offered: readonly string[]) {
    super('mcp.tool_missing', `the MCP server offers no tool named ${mcpTool}`, {
      mcpTool,
      offered: offered.slice(0, 50),
    });
  }
}

/** `mcp.narrow_schema_mismatch`: a narrowSchema declares a property the server's schema lacks, or omits one the server requires. */
export class McpNarrowSchemaMismatchError extends McpAdapterError {
  constructor(mcpTool: string, reason: string) {
    super(
      'mcp.narrow_schema_mismatch',
      `narrowSchema of MCP tool ${mcpTool} does not fit the server schema: ${reason}`,
      {
        mcpTool,
        reason,
      },
    );
  }
}

/** `mcp.tool_error`: the server ran the tool and reported `isError`. `details.text` is its bounded error text. Terminal. */
export class McpToolError extends McpAdapterError {
  constructor(mcpTool: string, text: string) {
    super('mcp.tool_error', `MCP tool ${mcpTool} failed: ${text.slice(0, 200)}`, { mcpTool, text });
  }
}

/** `mcp.timeout`: no answer within the call timeout; the request was cancelled. For a write tool the outcome is unknown. */
export class McpTimeoutError extends McpAdapterError {
  constructor(mcpTool: string, timeoutMs: number) {
    super('mcp.timeout', `MCP tool ${mcpTool} did not answer within ${timeoutMs} ms`, { mcpTool, timeoutMs });
  }
}

/** `mcp.cancelled`: the caller's AbortSignal fired before the answer. For a write tool the outcome is unknown. */
export class McpCancelledError extends McpAdapterError {
  constructor(mcpTool: string) {
    super('mcp.cancelled', `MCP tool ${mcpTool} call was cancelled`, { mcpTool });
  }
}

/** `mcp.call_failed`: a protocol or transport failure (connection closed, malformed answer). */
export class McpCallFailedError extends McpAdapterError {
  constructor(mcpTool: string, reason: string) {
    super('mcp.call_failed', `MCP tool ${mcpTool} call failed: ${reason.slice(0, 500)}`, {
      mcpTool,
      reason: reason.slice(0, 500),
    });
  }
}
