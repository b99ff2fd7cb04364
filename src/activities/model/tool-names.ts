import { ModelError } from './errors.js';
import type { ModelToolSpec } from './types.js';
import { versionedName } from '../../contract/versioned-name.js';

/** Tool names every provider accepts. */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Provider-safe name of a harness tool: dots become `_`, the version is appended after `__`
 * (`order.read`@`v1` -> `order_read__v1`). Throws `model.invalid_request` when the result is not a
 * valid provider name (too long or with characters outside `[a-zA-Z0-9_-]`).
 */
export function encodeToolName(name: string, version: string): string {
  const encoded = `${name.replace(/\./g, '_')}__${version}`;
  if (!PROVIDER_TOOL_NAME.test(encoded)) {
    throw new ModelError(
      'model.invalid_request',
      `tool ${versionedName(name, version)} cannot be given a provider-safe name`,
      {
        details: { tool: name, version, encoded },
      },
    );
  }
  return encoded;
}

/**
 * Maps provider-safe names back to the harness tools offered in one request. Decoding is a lookup in
 * the offered set, never string surgery, so the model cannot name a tool it was not offered.
 */
export class ToolNameCodec {
  private readonly byEncoded = new Map<string, ModelToolSpec>();

  /** Throws `model.invalid_request` if two offered tools encode to the same provider name. */
  constructor(tools: readonly ModelToolSpec[] = []) {
    for (const tool of tools) {
      const encoded = encodeToolName(tool.name, tool.version);
      const clash = this.byEncoded.get(encoded);
      if (clash !== undefined) {
        throw new ModelError(
          'model.invalid_request',
          `tools ${versionedName(clash.name, clash.version)} and ${versionedName(tool.name, tool.version)} share the provider name ${encoded}`,
          { details: { encoded } },
        );
      }
      this.byEncoded.set(encoded, tool);
    }
  }

  encode(tool: Pick<ModelToolSpec, 'name' | 'version'>): string {
    return encodeToolName(tool.name, tool.version);
  }

  /** The offered tool a provider name refers to, or undefined for a name not offered. */
  find(providerName: string): ModelToolSpec | undefined {
    return this.byEncoded.get(providerName);
  }

  /** The offered tool a provider name refers to. Throws `model.unknown_tool` for names not offered. */
  decode(providerName: string): ModelToolSpec {
    const tool = this.find(providerName);
    if (tool === undefined) {
      throw new ModelError(
        'model.unknown_tool',
        `the model called a tool that was not offered: ${JSON.stringify(providerName.slice(0, 80))}`,
        {
          details: { providerName: providerName.slice(0, 80) },
        },
      );
    }
    return tool;
  }
}
