import type { ToolDefinition } from '../contract/tool.js';
import { jsonDigest } from '../contract/digest.js';

const digests = new WeakMap<ToolDefinition, string>();

/**
 * The `sha256:` digest of one tool definition's canonical JSON (name, version, effect,
 * `idempotentByKey`, description, parameter schema): what a run pins per tool and a worker compares
 * before it runs a call (the tool activity's `definitionDigest`). The same on both sides for the same
 * content, whichever copy of the object it is given. Pure and sandbox-safe; remembered per object.
 */
export function definitionDigest(definition: ToolDefinition): string {
  let digest = digests.get(definition);
  if (digest === undefined) {
    digest = jsonDigest(definition);
    digests.set(definition, digest);
  }
  return digest;
}
