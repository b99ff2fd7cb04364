import type { ModelScript } from '../../src/index.js';
import { MCP_FILES_TOOLS } from './workflow/mcp-files-mapping.js';

/** Scripted route of `mcp.files@v1`. */
export const MCP_FILES_ROUTE = 'scripted/mcp-files';
/** The file the script reads (the demo workspace's seed file) and the one it writes. */
export const MCP_FILES_SCRIPT_READ = 'notes/hello.txt';
export const MCP_FILES_SCRIPT_WRITE = 'notes/summary.txt';
/** Content the script writes. */
export const MCP_FILES_SCRIPT_CONTENT = 'Summary: the workspace has a hello note.\n';

function call(step: number, name: string, args: Record<string, unknown>, contains?: string) {
  return {
    match: contains === undefined ? { step } : { step, contains },
    response: { text: '', toolCalls: [{ name, version: 'v1', args }] },
  };
}

/**
 * The scripted stand-in model of `mcp.files@v1` (a fixed sequence by step, not a model):
 * - a goal mentioning `escape` writes `../escaped.txt`; after the denial it answers;
 * - otherwise list `.` -> read `notes/hello.txt` -> write `notes/summary.txt` -> final text.
 */
export const MCP_FILES_SCRIPT: ModelScript = {
  entries: [
    call(0, MCP_FILES_TOOLS.write, { path: '../escaped.txt', content: 'outside' }, 'escape'),
    {
      match: { step: 1, contains: 'policy.denied' },
      response: { text: 'The policy refused to write outside the workspace.', toolCalls: [] },
    },
    call(0, MCP_FILES_TOOLS.list, { path: '.' }),
    call(1, MCP_FILES_TOOLS.read, { path: MCP_FILES_SCRIPT_READ }),
    call(2, MCP_FILES_TOOLS.write, { path: MCP_FILES_SCRIPT_WRITE, content: MCP_FILES_SCRIPT_CONTENT }),
    { match: { step: 3 }, response: { text: `Wrote ${MCP_FILES_SCRIPT_WRITE}.`, toolCalls: [] } },
  ],
  fallback: { text: 'I could not finish the file task.', toolCalls: [] },
};
