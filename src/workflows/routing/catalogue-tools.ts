import type { ToolDefinition } from '../../contract/tool.js';
import { versionedName } from '../../contract/versioned-name.js';
import type { CatalogueIssueCode } from './catalogue-error.js';

/** What the catalogue needs to know of a tool: its identity and trusted effect. */
export type CatalogueTool = Pick<ToolDefinition, 'name' | 'version' | 'effect'>;

/** A tool reference resolved to its pinned key, or the issue that stops it. */
export type ResolvedTool =
  | { readonly ok: true; readonly key: string; readonly effect: CatalogueTool['effect'] }
  | { readonly ok: false; readonly code: CatalogueIssueCode; readonly message: string };

/** The known tools by name, each with its versions. */
export type ToolIndex = ReadonlyMap<string, ReadonlyMap<string, CatalogueTool['effect']>>;

/** Index `tools` by name then version (a repeated `name@version` keeps its first effect). Never throws. */
export function indexTools(tools: readonly CatalogueTool[]): ToolIndex {
  const index = new Map<string, Map<string, CatalogueTool['effect']>>();
  for (const t of tools) {
    const versions = index.get(t.name) ?? new Map<string, CatalogueTool['effect']>();
    if (!versions.has(t.version)) versions.set(t.version, t.effect);
    index.set(t.name, versions);
  }
  return index;
}

/**
 * Pin `ref` (`name` or `name@version`) against the known tools: a bare name must have exactly one
 * version (`ambiguous_tool` otherwise), an unknown name or version is `unknown_tool`. Never throws.
 */
export function resolveTool(ref: string, index: ToolIndex): ResolvedTool {
  const at = ref.indexOf('@');
  const name = at < 0 ? ref : ref.slice(0, at);
  const versions = index.get(name);
  if (!versions) return { ok: false, code: 'unknown_tool', message: `no tool named ${name}` };
  if (at >= 0) {
    const version = ref.slice(at + 1);
    const effect = versions.get(version);
    if (!effect) return { ok: false, code: 'unknown_tool', message: `no tool ${ref}` };
    return { ok: true, key: ref, effect };
  }
  if (versions.size !== 1) {
    const listed = [...versions.keys()].sort().join(', ');
    return { ok: false, code: 'ambiguous_tool', message: `${name} has versions ${listed}: name one` };
  }
  const [version, effect] = [...versions.entries()][0]!;
  return { ok: true, key: versionedName(name, version), effect };
}
