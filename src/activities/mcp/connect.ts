import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { ToolRegistry } from '../../registry/tool-registry.js';
import { importOptional } from '../optional-package.js';
import { McpConnectError, McpToolMissingError } from './errors.js';
import { checkMapping, mapMcpTool } from './mapping.js';
import type { McpToolListing, McpToolMapping } from './mapping.js';
import { McpToolExecutor } from './mcp-executor.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from './result-mapping.js';

/** Default timeout of one tool call. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 30_000;
/** Default timeout of starting the server, initialising and listing its tools. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 15_000;
const MAX_LIST_PAGES = 20;
const STDERR_TAIL_CHARS = 4096;

/** How to start an MCP server over stdio. */
export interface McpStdioServer {
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Environment of the server; by default only the SDK's safe inherited variables (no credentials leak in). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ConnectMcpToolsOptions {
  readonly server: McpStdioServer;
  /** Trusted mapping; only the MCP tools it names are registered. */
  readonly mapping: McpToolMapping;
  /** Registry to register the mapped tools in. */
  readonly registry: ToolRegistry;
  /** Per-call timeout; default {@link DEFAULT_MCP_CALL_TIMEOUT_MS}. */
  readonly callTimeoutMs?: number;
  /** Start, initialise and list timeout; default {@link DEFAULT_MCP_CONNECT_TIMEOUT_MS}. */
  readonly connectTimeoutMs?: number;
  /** Text output bound per call in UTF-8 bytes; default 32 KiB. */
  readonly maxOutputBytes?: number;
}

/** A connected MCP server whose mapped tools are registered. */
export interface McpToolSet {
  /** The registered tools, by MCP name, in mapping order. */
  readonly tools: readonly { readonly mcpName: string; readonly definition: ToolDefinition }[];
  /** Path field pointers per harness tool name, for a restriction policy (empty list when none). */
  readonly pathFields: Readonly<Record<string, readonly string[]>>;
  /** Stops the server process. Idempotent. Calls made afterwards fail with `mcp.call_failed`. */
  close(): Promise<void>;
}

/**
 * Starts an MCP server over stdio, lists its tools and registers in `registry` exactly those the
 * trusted mapping names, as harness tools with the mapping's name, version and effect. The server's
 * annotations (`readOnlyHint`, `destructiveHint`, ...) are never read. All mapped tools are checked
 * before any is registered, and on any failure the server is stopped before the error is thrown.
 *
 * @throws {McpInvalidMappingError} `mcp.invalid_mapping` (checked before the server starts).
 * @throws {McpConnectError} `mcp.connect_failed` when the server cannot start, initialise or list tools.
 * @throws {McpToolMissingError} `mcp.tool_missing` when a mapped tool is not offered.
 * @throws {MissingPackageError} `package.missing` when the optional package `@modelcontextprotocol/sdk` is not installed.
 * @throws {McpNarrowSchemaMismatchError} `mcp.narrow_schema_mismatch`.
 * @throws {RegistryError} a registration rule a mapped tool breaks (e.g. `registry.schema_not_closed`
 *   for a server schema without `additionalProperties: false` and no narrowSchema, `registry.conflict`).
 *   A conflict can leave earlier tools of this set registered.
 */
export async function connectMcpTools(options: ConnectMcpToolsOptions): Promise<McpToolSet> {
  checkMapping(options.mapping);
  const sdk = '@modelcontextprotocol/sdk';
  const [{ Client: McpClient }, { StdioClientTransport: Stdio }] = await Promise.all([
    importOptional(sdk, () => import('@modelcontextprotocol/sdk/client/index.js')),
    importOptional(sdk, () => import('@modelcontextprotocol/sdk/client/stdio.js')),
  ]);
  const transport: StdioClientTransport = new Stdio({
    command: options.server.command,
    args: [...(options.server.args ?? [])],
    ...(options.server.cwd === undefined ? {} : { cwd: options.server.cwd }),
    ...(options.server.env === undefined ? {} : { env: { ...options.server.env } }),
    stderr: 'pipe',
  });
  let stderrTail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  const client: Client = new McpClient({ name: 'agent-harness', version: '0.1.0' });
  const close = once(() => client.close());
  try {
    const listed = await listTools(
      client,
      transport,
      options.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS,
      () => stderrTail,
    );
    const byName = new Map(listed.map((t) => [t.name, t]));
    const mapped = Object.entries(options.mapping).map(([mcpName, entry]) => {
      const tool = byName.get(mcpName);
      if (tool === undefined) throw new McpToolMissingError(mcpName, [...byName.keys()]);
      return mapMcpTool(tool, entry);
    });
    const limits = {
      timeoutMs: options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    };
    const pathFields: Record<string, readonly string[]> = {};
    for (const tool of mapped) {
      options.registry.register(tool.definition, new McpToolExecutor(client, tool.mcpName, limits));
      pathFields[tool.definition.name] = tool.pathFields;
    }
    return {
      tools: mapped.map((t) => ({ mcpName: t.mcpName, definition: t.definition })),
      pathFields,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function listTools(
  client: Client,
  transport: StdioClientTransport,
  timeoutMs: number,
  stderrTail: () => string,
): Promise<McpToolListing[]> {
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const tools: McpToolListing[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: timeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
    }
    throw new Error(`tool listing longer than ${MAX_LIST_PAGES} pages`);
  } catch (err) {
    throw new McpConnectError(err instanceof Error ? err.message : String(err), stderrTail());
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
