import { hostname } from 'node:os';
import { ModelRouter } from '../activities/model-router.js';
import { registerBenchTools } from '../examples/bench/bench-noop-tool.js';
import type { CodingToolsConfig } from '../examples/coding/coding-config.js';
import { enableCodingExample } from '../examples/coding/coding-example.js';
import { codingConfigFromEnv } from '../examples/coding/coding-settings.js';
import { enableMcpFilesExample } from '../examples/mcp/mcp-files-example.js';
import { mcpFilesConfigFromEnv, type McpFilesConfig } from '../examples/mcp/mcp-files-tools.js';
import { openRefundStore, type RefundStore } from '../examples/refund/business/refund-store.js';
import { storeLatencyFromEnv } from '../examples/refund/business/store-latency.js';
import { REFUND_SCRIPT } from '../examples/refund/refund-script.js';
import { registerRefundTools } from '../examples/refund/tools/refund-tools.js';
import { providerFromEnv } from '../model/provider-from-env.js';
import { ScriptedProvider } from '../model/scripted-provider.js';
import { parseModelScript } from '../model/scripted-script.js';
import { sha256Digest, ToolRegistry } from '../registry/index.js';
import { openEvidenceStore, type EvidenceStore } from '../store/index.js';

export interface HarnessCompositionOptions {
  /** Evidence store URL (`sqlite:<path>` or `postgres://...`). */
  readonly storeUrl: string;
  /** The refund example's business store (SQLite file). */
  readonly refundStorePath: string;
  /** Extra scripted routes: route name -> script (validated; defaults applied). */
  readonly scripts?: Readonly<Record<string, unknown>>;
  readonly identity?: string;
  /** Environment for real model providers and the example switches below (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** Enable the coding example's git tools and routes (default: `HARNESS_CODING_REPO`/`_REMOTE` in env). */
  readonly coding?: CodingToolsConfig;
  /** Enable the MCP filesystem example (default: `HARNESS_MCP_ROOT` in env); closed with the composition. */
  readonly mcp?: McpFilesConfig;
}

/** The trusted worker-side composition: tools with executors, evidence store, model routes. */
export interface HarnessComposition {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly models: ModelRouter;
  readonly refundStore: RefundStore;
  readonly identity: string;
  /** Digest of what a run pins from this composition (registry + routes). */
  readonly configDigest: string;
  /** The route runs use by default: `env` when a real provider is configured, else `scripted/refund`. */
  readonly defaultModelRoute: string;
  close(): Promise<void>;
}

/**
 * Build the composition used by the worker, the CLI and the main job. Credentials for real model
 * providers come from the environment here and stay in the worker process.
 * @throws the store's errors (bad URL, schema too new) and provider configuration errors.
 */
export async function createHarnessComposition(
  options: HarnessCompositionOptions,
): Promise<HarnessComposition> {
  const env = options.env ?? process.env;
  const refundStore = openRefundStore(options.refundStorePath, { latency: storeLatencyFromEnv(env) });
  refundStore.seedIfEmpty();
  const registry = new ToolRegistry();
  // Drill knob: `off` simulates a connector whose outcome cannot be checked automatically.
  registerRefundTools(registry, refundStore, { reconcile: env.HARNESS_REFUND_RECONCILE !== 'off' });
  registerBenchTools(registry);
  const models = new ModelRouter();
  const coding = options.coding ?? codingConfigFromEnv(env);
  if (coding) enableCodingExample(registry, models, coding);
  const mcpConfig = options.mcp ?? mcpFilesConfigFromEnv(env);
  const mcp = mcpConfig ? await enableMcpFilesExample(registry, models, mcpConfig) : undefined;
  const store = await openEvidenceStore(options.storeUrl);
  models.register(
    'scripted/refund',
    new ScriptedProvider(parseModelScript(REFUND_SCRIPT, 'scripted/refund')),
    'scripted',
  );
  for (const [route, script] of Object.entries(options.scripts ?? {})) {
    models.register(route, new ScriptedProvider(parseModelScript(script, route)), 'scripted');
  }
  let defaultModelRoute = 'scripted/refund';
  if (env.HARNESS_MODEL_PROVIDER && env.HARNESS_MODEL_PROVIDER !== 'scripted') {
    models.register('env', providerFromEnv(env), env.HARNESS_MODEL ?? 'default');
    defaultModelRoute = 'env';
  }
  const configDigest = sha256Digest({
    tools: registry.snapshot().digest,
    routes: models.routeNames().sort(),
  });
  return {
    registry,
    store,
    models,
    refundStore,
    identity: options.identity ?? `${hostname()}:${process.pid}`,
    configDigest,
    defaultModelRoute,
    close: async () => {
      await mcp?.close();
      await store.close();
      refundStore.close();
    },
  };
}
