/**
 * Register tools of the real MCP filesystem server through a trusted mapping.
 * Compiled and run by test/unit/registry/docs-examples.test.ts; docs/extending.md quotes it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { connectMcpTools } from '../../src/activities/mcp/index.js';
import type { McpToolMapping } from '../../src/activities/mcp/index.js';
import { ToolRegistry } from '../../src/registry/index.js';

/** The filesystem server's bin script, as its package.json names it. */
function filesystemServerScript(): string {
  const manifest = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-filesystem/package.json',
  );
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), pkg.bin['mcp-server-filesystem'] ?? 'dist/index.js');
}

export interface McpExample {
  readonly registered: string[];
  readonly pathFields: Readonly<Record<string, readonly string[]>>;
  readonly listing: unknown;
}

export async function run(workspace: string): Promise<McpExample> {
  // --- mapping ---
  const mapping: McpToolMapping = {
    list_directory: {
      name: 'fs.list_directory',
      version: 'v1',
      effect: 'read',
      pathFields: ['/path'],
      // The server's schema is open (no additionalProperties: false): close it here.
      narrowSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        properties: { path: { type: 'string', minLength: 1 } },
      },
    },
    write_file: {
      name: 'fs.write_file',
      version: 'v1',
      effect: 'write', // from this mapping only; the server's annotations are ignored
      description: 'Create or overwrite a text file in the workspace',
      pathFields: ['/path'],
      narrowSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'content'],
        properties: { path: { type: 'string', minLength: 1 }, content: { type: 'string', maxLength: 65536 } },
      },
    },
  };

  const registry = new ToolRegistry();
  const mcp = await connectMcpTools({
    server: { command: process.execPath, args: [filesystemServerScript(), workspace] },
    mapping,
    registry,
    callTimeoutMs: 10_000,
    maxOutputBytes: 32 * 1024,
  });
  try {
    const tool = registry.get('fs.list_directory', 'v1');
    const checked = tool.validate({ path: '.' }); // relative to the server's root
    if (!checked.ok) throw new Error(checked.rejection.message);
    const execution = await tool.executor.execute(
      { signal: new AbortController().signal, heartbeat: () => undefined },
      {
        runId: 'run-1',
        seq: 1,
        tool: 'fs.list_directory',
        version: 'v1',
        args: checked.args,
        idempotencyKey: 'run-1:1',
      },
    );
    // mcp.pathFields feeds the restriction policy: { 'fs.list_directory': ['/path'], 'fs.write_file': ['/path'] }
    return {
      registered: registry.list().map((d) => `${d.name}@${d.version}`),
      pathFields: mcp.pathFields,
      listing: execution.output.text,
    };
  } finally {
    await mcp.close();
  }
  // --- end mapping ---
}
