import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { connectMcpTools, HarnessError, type McpToolSet } from '../../src/index.js';
import type { ToolRegistry } from '../../src/index.js';
import { MCP_FILES_MAPPING } from './workflow/mcp-files-mapping.js';

/** Where the MCP filesystem example works. Trusted worker-side configuration. */
export interface McpFilesConfig {
  /** The workspace root the server may touch (its only allowed directory). Must exist. */
  readonly rootDir: string;
  /** Per-call timeout; default 10 s. */
  readonly callTimeoutMs?: number;
}

/** The filesystem server's bin script, as its package.json names it. */
export function filesystemServerScript(): string {
  const manifest = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-filesystem/package.json',
  );
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> };
  return join(dirname(manifest), pkg.bin?.['mcp-server-filesystem'] ?? 'dist/index.js');
}

/**
 * Start `@modelcontextprotocol/server-filesystem` (this Node binary, stdio) serving `rootDir` only,
 * and register fs.read, fs.list and fs.write in `registry` through {@link MCP_FILES_MAPPING}.
 * The caller owns the returned set and must `close()` it (the worker composition does, at
 * shutdown).
 * @throws the errors of `connectMcpTools` (`mcp.connect_failed` when the root does not exist or the
 *   server cannot start, `mcp.tool_missing`, `registry.conflict`, ...).
 */
export function connectMcpFilesTools(registry: ToolRegistry, config: McpFilesConfig): Promise<McpToolSet> {
  const root = resolve(config.rootDir);
  return connectMcpTools({
    server: { command: process.execPath, args: [filesystemServerScript(), root], cwd: root },
    mapping: MCP_FILES_MAPPING,
    registry,
    callTimeoutMs: config.callTimeoutMs ?? 10_000,
  });
}

/**
 * The MCP example's configuration from `HARNESS_MCP_ROOT`, or undefined when it is not set. The
 * worker and the CLI must see the same value (the tools are part of the pinned registry digest).
 * @throws HarnessError `mcp.config_invalid` for a relative root.
 */
export function mcpFilesConfigFromEnv(env: NodeJS.ProcessEnv): McpFilesConfig | undefined {
  const root = env.HARNESS_MCP_ROOT;
  if (!root) return undefined;
  if (!root.startsWith('/'))
    throw new HarnessError('mcp.config_invalid', 'HARNESS_MCP_ROOT must be an absolute directory');
  return { rootDir: root };
}
