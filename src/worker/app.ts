import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HarnessError } from '../contract/errors.js';
import type { AgentRunDefinition } from '../workflows/index.js';
import type { ModelRouter } from '../activities/model-router.js';
import type { BundleCatalog } from '../activities/bundles/bundle-catalog.js';
import type { EvidenceStore } from '../contract/evidence-store.js';
import type { ErasableRule } from '../contract/erasable-rule.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { LoadedPrincipals } from '../activities/authz/principal-registry.js';
import type { ChainHeadSigner } from '../activities/attestation/chain-head-signer.js';
import type { PrincipalRegistry } from '../contract/principals.js';
import type { FailureSample } from '../contract/failure-sample.js';

/** The trusted worker-side composition of an app: tools with executors, evidence store, model routes. */
export interface WorkerComposition {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly models: ModelRouter;
  /** Worker identity shown in Temporal (default `host:pid`). */
  readonly identity: string;
  /** Digest of what a run pins from this composition (tools and model routes). */
  readonly configDigest: string;
  /** The model route runs use when the starter names none. */
  readonly defaultModelRoute: string;
  /** Who may decide (docs/authorization.md): the registry runs check signed decisions against. */
  readonly principals: LoadedPrincipals;
  /** Control-plane bundles and rollout (docs/control-plane.md); absent: prompts and policies in code. */
  readonly bundles?: BundleCatalog;
  /**
   * The worker's attestation key (docs/evidence-chain.md, "Signed chain heads"): the event-append
   * activity signs the run's chain head with it and returns it into the history. Absent: no heads.
   */
  readonly attestation?: ChainHeadSigner;
  /**
   * The app's declared erasable fields (docs/evidence-chain.md, "Which values are erasable"), which the
   * store applies; part of the run config pin, so a run's calls go only to workers with the same rule.
   */
  readonly erasable?: ErasableRule;
  /** Close what the composition opened (stores, MCP servers). */
  close(): Promise<void>;
}

/** What the harness hands an app when it builds the worker composition. */
export interface AppCompositionOptions {
  /** Evidence store URL (`sqlite:<path>` or `postgres://...`). */
  readonly storeUrl: string;
  /** Environment for credentials and the app's own settings (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  readonly identity?: string;
  /**
   * The principal registry (an object or a file path); default `HARNESS_PRINCIPALS` from `env`
   * (docs/authorization.md).
   */
  readonly principals?: PrincipalRegistry | string;
}

/** A case of an app's own evaluation, made from a failure sample (`harness failures export --as-case`). */
export interface FailureCase {
  /** The case id (the file is `<id>.json`): letters, digits, `_`, `.`, `-`. */
  readonly id: string;
  /** The case as the app's evaluation reads it (JSON). */
  readonly case: unknown;
}

/**
 * An app built on the harness, as the `harness` CLI, `harness worker` and `harness dev` load it: its
 * workflows module, the same workflow-side definition (so clients can check profile and policy names
 * without a worker), and how to build its worker composition.
 */
export interface HarnessApp {
  readonly name: string;
  /** Absolute path of the workflows module that exports `agentRun = defineAgentRun(definition)`. */
  readonly workflowsPath: string;
  readonly definition: AgentRunDefinition;
  createComposition(options: AppCompositionOptions): Promise<WorkerComposition>;
  /**
   * Optional: turn an exported failure sample into a case of the app's own evaluation, so the
   * failure becomes a regression case (docs/evaluation.md). Throws a `HarnessError` when the sample
   * cannot become a case (e.g. it lacks an observation the case needs).
   */
  failureCase?(sample: FailureSample): FailureCase;
}

function isHarnessApp(value: unknown): value is HarnessApp {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<HarnessApp>;
  return (
    typeof v.name === 'string' &&
    typeof v.workflowsPath === 'string' &&
    typeof v.createComposition === 'function' &&
    typeof v.definition === 'object'
  );
}

/** The `agentHarness.app` entry of the nearest package.json above `dir` that has one, resolved against it. */
function appFromPackageJson(dir: string): string | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    const file = join(d, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { agentHarness?: { app?: unknown } };
      const app = pkg.agentHarness?.app;
      if (typeof app === 'string') return resolve(d, app);
    }
    if (dirname(d) === d) return undefined;
  }
}

/**
 * Load the app module named by `spec`, else `HARNESS_APP`, else the `agentHarness.app` field of the
 * nearest package.json above the working directory that has that field. The module exports the app as `default` or `app`.
 * @throws HarnessError `app.not_configured` when nothing names an app, `app.invalid` when the module
 *   does not export a {@link HarnessApp}; the module's own import errors as they are.
 */
export async function loadHarnessApp(
  spec?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<HarnessApp> {
  const named = spec ?? env.HARNESS_APP;
  const path = named ? (isAbsolute(named) ? named : resolve(cwd, named)) : appFromPackageJson(cwd);
  if (!path) {
    throw new HarnessError(
      'app.not_configured',
      'no app: pass --app <module>, set HARNESS_APP, or add "agentHarness": { "app": "<module>" } to package.json',
    );
  }
  const mod = (await import(pathToFileURL(path).href)) as { default?: unknown; app?: unknown };
  const app = mod.app ?? mod.default;
  if (!isHarnessApp(app)) {
    throw new HarnessError('app.invalid', `${path} does not export a HarnessApp as "app" or default`, {
      path,
    });
  }
  return app;
}
