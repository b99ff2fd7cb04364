/**
 * MCP adapter: tools of an MCP server become harness tools only through a trusted
 * name/version/effect mapping. Worker side only (spawns processes).
 */
export type { ConnectMcpToolsOptions, McpStdioServer, McpToolSet } from './connect.js';
export { DEFAULT_MCP_CALL_TIMEOUT_MS, DEFAULT_MCP_CONNECT_TIMEOUT_MS, connectMcpTools } from './connect.js';
export type { McpErrorCode } from './errors.js';
export {
  MCP_ERROR_CODES,
  McpAdapterError,
  McpCallFailedError,
  McpCancelledError,
  McpConnectError,
  McpInvalidMappingError,
  McpNarrowSchemaMismatchError,
  McpTimeoutError,
  McpToolError,
  McpToolMissingError,
} from './errors.js';
export type { MappedMcpTool, McpToolListing, McpToolMapping, McpToolMappingEntry } from './mapping.js';
export { checkMapping, mapMcpTool } from './mapping.js';
export type { McpCallLimits } from './mcp-executor.js';
export { McpToolExecutor } from './mcp-executor.js';
export type { McpCallResult } from './result-mapping.js';
export { DEFAULT_MAX_OUTPUT_BYTES, mapMcpResult } from './result-mapping.js';
