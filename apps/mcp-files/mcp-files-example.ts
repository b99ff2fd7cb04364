import type { McpToolSet, ModelRouter, ToolRegistry } from '../../src/index.js';
import { parseModelScript, ScriptedProvider } from '../../src/index.js';
import { MCP_FILES_ROUTE, MCP_FILES_SCRIPT } from './mcp-files-script.js';
import { connectMcpFilesTools, type McpFilesConfig } from './mcp-files-tools.js';

/**
 * Enable the MCP filesystem example in a worker composition: start the server on
 * `config.rootDir`, register fs.read/fs.list/fs.write and the scripted route `scripted/mcp-files`.
 * The returned set must be closed at shutdown (it stops the server process).
 * @throws the errors of {@link connectMcpFilesTools}; the server is stopped before they are thrown.
 */
export async function enableMcpFilesExample(
  registry: ToolRegistry,
  models: ModelRouter,
  config: McpFilesConfig,
): Promise<McpToolSet> {
  const set = await connectMcpFilesTools(registry, config);
  models.register(
    MCP_FILES_ROUTE,
    new ScriptedProvider(parseModelScript(MCP_FILES_SCRIPT, MCP_FILES_ROUTE)),
    'scripted',
  );
  return set;
}
