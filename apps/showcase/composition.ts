import type { CodingToolsConfig } from '../coding/coding-config.js';
import { enableCodingExample } from '../coding/coding-example.js';
import { codingConfigFromEnv } from '../coding/coding-settings.js';
import { enableMcpFilesExample } from '../mcp-files/mcp-files-example.js';
import { mcpFilesConfigFromEnv, type McpFilesConfig } from '../mcp-files/mcp-files-tools.js';
import {
  createRefundComposition,
  type CompositionExtension,
  type RefundComposition,
  type RefundCompositionOptions,
} from '../refund/composition.js';

export interface ShowcaseCompositionOptions extends RefundCompositionOptions {
  /** Enable the coding example's git tools and routes (default: `HARNESS_CODING_REPO`/`_REMOTE` in env). */
  readonly coding?: CodingToolsConfig;
  /** Enable the MCP filesystem example (default: `HARNESS_MCP_ROOT` in env); closed with the composition. */
  readonly mcp?: McpFilesConfig;
}

/**
 * Every example app in one worker: the refund app's composition, plus the coding (git) and MCP
 * filesystem examples when they are configured.
 * @throws as createRefundComposition, and the MCP server's connection errors.
 */
export function createShowcaseComposition(options: ShowcaseCompositionOptions): Promise<RefundComposition> {
  const env = options.env ?? process.env;
  const coding = options.coding ?? codingConfigFromEnv(env);
  const mcp = options.mcp ?? mcpFilesConfigFromEnv(env);
  const extend: CompositionExtension[] = [...(options.extend ?? [])];
  if (coding) extend.push((registry, models) => void enableCodingExample(registry, models, coding));
  if (mcp) {
    extend.push(async (registry, models) => {
      const set = await enableMcpFilesExample(registry, models, mcp);
      return () => set.close();
    });
  }
  return createRefundComposition({ ...options, extend });
}
