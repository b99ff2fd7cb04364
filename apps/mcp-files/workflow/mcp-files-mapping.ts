import type { McpToolMapping } from '../../../src/index.js';

/** Harness names of the filesystem tools, all `v1`. */
export const MCP_FILES_TOOLS = { read: 'fs.read', list: 'fs.list', write: 'fs.write' } as const;

/** The argument that holds a path, as a JSON pointer, for every mapped tool. */
const PATH_FIELD = '/path';

/**
 * A path argument: relative to the served root (the filesystem server resolves relative paths
 * against its first allowed directory). The restriction policy refuses absolute paths and `..`
 * escapes before any call; the server refuses paths outside its root and symlinks leading out.
 */
const PATH_SCHEMA = {
  type: 'string',
  description: 'Path relative to the workspace root, e.g. notes/todo.txt (. for the root).',
  minLength: 1,
  maxLength: 1000,
} as const;

/** The narrowed parameters of the path-only tools. */
const PATH_ONLY_SCHEMA = {
  type: 'object',
  properties: { path: PATH_SCHEMA },
  required: ['path'],
  additionalProperties: false,
} as const;

/**
 * The trusted mapping of `@modelcontextprotocol/server-filesystem` tools: name, version and
 * effect come from here, never from the server; the narrow schemas close the server's open ones.
 * Pure data: the workflow side reads {@link MCP_FILES_PATH_FIELDS} from it for its policy.
 */
export const MCP_FILES_MAPPING: McpToolMapping = {
  read_text_file: {
    name: MCP_FILES_TOOLS.read,
    version: 'v1',
    effect: 'read',
    description: 'Read a text file of the workspace.',
    pathFields: [PATH_FIELD],
    narrowSchema: PATH_ONLY_SCHEMA,
  },
  list_directory: {
    name: MCP_FILES_TOOLS.list,
    version: 'v1',
    effect: 'read',
    description: 'List a directory of the workspace.',
    pathFields: [PATH_FIELD],
    narrowSchema: PATH_ONLY_SCHEMA,
  },
  write_file: {
    name: MCP_FILES_TOOLS.write,
    version: 'v1',
    effect: 'write',
    description: 'Create or overwrite a text file of the workspace.',
    pathFields: [PATH_FIELD],
    narrowSchema: {
      type: 'object',
      properties: { path: PATH_SCHEMA, content: { type: 'string', maxLength: 65536 } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
};

/** Path fields per harness tool name, as the restriction policy takes them. */
export const MCP_FILES_PATH_FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.values(MCP_FILES_MAPPING).map((e) => [e.name, [...(e.pathFields ?? [])]]),
);
