import type { JsonSchema, ToolDefinition, ToolEffect } from '../../contract/tool.js';
import { isPlainObject } from '../../contract/canonical-json.js';
import { validateToolDefinition } from '../../registry/tool-definition.js';
import { McpInvalidMappingError, McpNarrowSchemaMismatchError } from './errors.js';
import { versionedName } from '../../contract/versioned-name.js';

/**
 * How one MCP tool becomes a harness tool. Written by the trusted composition: the harness name,
 * version and effect come only from here, never from the server (its annotations such as
 * `readOnlyHint` are ignored).
 */
export interface McpToolMappingEntry {
  readonly name: string;
  readonly version: string;
  readonly effect: ToolEffect;
  /** Model-visible description; defaults to the server's description. */
  readonly description?: string;
  /**
   * JSON pointers to argument properties holding filesystem paths (e.g. `/path`), for a restriction
   * policy to confine. Each must reach, through `properties`, a string or an array of strings.
   */
  readonly pathFields?: readonly string[];
  /**
   * Parameter schema to present instead of the server's. Must fit the server's schema: only
   * properties the server declares, and every property the server requires. Use it to close the
   * schema (`additionalProperties: false`) or narrow it; without it the server schema must pass
   * the registry's subset check as it is (after dropping a root `$schema`).
   */
  readonly narrowSchema?: JsonSchema;
}

/** Trusted mapping, keyed by the MCP tool name. MCP tools not named here are never registered. */
export type McpToolMapping = Readonly<Record<string, McpToolMappingEntry>>;

/** The part of an MCP tool listing the adapter reads. */
export interface McpToolListing {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
}

/** A harness definition derived from an MCP tool, with the path fields of its mapping. */
export interface MappedMcpTool {
  readonly mcpName: string;
  readonly definition: ToolDefinition;
  readonly pathFields: readonly string[];
}

/**
 * Builds and checks the harness definition of one mapped MCP tool. Pure.
 *
 * @throws {McpNarrowSchemaMismatchError} `mcp.narrow_schema_mismatch`.
 * @throws {McpInvalidMappingError} `mcp.invalid_mapping` for a path field that does not reach a string
 *   (or string array) property.
 * @throws {RegistryError} any registration rule the definition breaks (`registry.schema_not_closed`
 *   for an open server schema without narrowSchema, `registry.unknown_effect`, ...).
 */
export function mapMcpTool(tool: McpToolListing, entry: McpToolMappingEntry): MappedMcpTool {
  const serverSchema = withoutDialect(tool.inputSchema);
  if (entry.narrowSchema !== undefined) checkNarrowing(tool.name, serverSchema, entry.narrowSchema);
  const definition = validateToolDefinition({
    name: entry.name,
    version: entry.version,
    effect: entry.effect,
    description: entry.description ?? tool.description ?? '',
    parameters: entry.narrowSchema ?? serverSchema,
  });
  const pathFields = [...(entry.pathFields ?? [])];
  for (const pointer of pathFields) checkPathField(tool.name, definition.parameters, pointer);
  return { mcpName: tool.name, definition, pathFields };
}

/** Drops the root `$schema` dialect marker MCP servers add; every other keyword is kept for the subset check. */
function withoutDialect(schema: Record<string, unknown>): JsonSchema {
  const copy: JsonSchema = { ...schema };
  delete copy.$schema;
  return copy;
}

function checkNarrowing(mcpTool: string, server: JsonSchema, narrow: JsonSchema): void {
  const serverProps = isPlainObject(server.properties) ? server.properties : {};
  const narrowProps = isPlainObject(narrow.properties) ? narrow.properties : {};
  const extra = Object.keys(narrowProps).filter((p) => !Object.prototype.hasOwnProperty.call(serverProps, p));
  if (extra.length > 0)
    throw new McpNarrowSchemaMismatchError(
      mcpTool,
      `properties the server does not declare: ${extra.join(', ')}`,
    );
  const serverRequired = Array.isArray(server.required) ? (server.required as unknown[]) : [];
  const narrowRequired = Array.isArray(narrow.required) ? (narrow.required as unknown[]) : [];
  const dropped = serverRequired.filter((r) => !narrowRequired.includes(r));
  if (dropped.length > 0)
    throw new McpNarrowSchemaMismatchError(
      mcpTool,
      `server-required properties not required: ${dropped.join(', ')}`,
    );
}

function checkPathField(mcpTool: string, schema: JsonSchema, pointer: string): void {
  if (!/^(\/[^/]+)+$/.test(pointer))
    throw new McpInvalidMappingError(mcpTool, `path field ${pointer} is not a JSON pointer to a property`);
  let node: unknown = schema;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const props: unknown = isPlainObject(node) ? node.properties : undefined;
    node =
      isPlainObject(props) && Object.prototype.hasOwnProperty.call(props, token) ? props[token] : undefined;
    if (node === undefined)
      throw new McpInvalidMappingError(mcpTool, `path field ${pointer} names no property of the schema`);
  }
  const leaf = node as JsonSchema;
  const items = leaf.items as JsonSchema | undefined;
  if (leaf.type !== 'string' && !(leaf.type === 'array' && items?.type === 'string')) {
    throw new McpInvalidMappingError(mcpTool, `path field ${pointer} is not a string or an array of strings`);
  }
}

/**
 * Checks the mapping as a whole: each harness `name@version` appears once, and all entries of one
 * harness name declare the same path fields (they are exported per name).
 *
 * @throws {McpInvalidMappingError} `mcp.invalid_mapping`.
 */
export function checkMapping(mapping: McpToolMapping): void {
  const keys = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const [mcpName, entry] of Object.entries(mapping)) {
    if (!isPlainObject(entry)) throw new McpInvalidMappingError(mcpName, 'entry must be an object');
    const key = versionedName(entry.name, entry.version);
    const other = keys.get(key);
    if (other !== undefined)
      throw new McpInvalidMappingError(mcpName, `harness tool ${key} is also mapped from ${other}`);
    keys.set(key, mcpName);
    const fields = JSON.stringify([...(entry.pathFields ?? [])].sort());
    const seen = paths.get(entry.name);
    if (seen !== undefined && seen !== fields) {
      throw new McpInvalidMappingError(mcpName, `versions of ${entry.name} declare different path fields`);
    }
    paths.set(entry.name, fields);
  }
}
