import type { ToolDefinition, ToolExecutor } from '../contract/tool.js';
import type { ArgumentValidateFn, ArgumentValidationResult } from './argument-validator.js';
import { ArgumentValidator, unknownToolRejection } from './argument-validator.js';
import { canonicalJson } from '../contract/canonical-json.js';
import { jsonDigest } from '../contract/digest.js';
import { InvalidExecutorError, ToolConflictError, ToolNotFoundError } from './errors.js';
import { validateToolDefinition } from './tool-definition.js';
import { TOOL_VERSION_PATTERN, assertToolName, toolKey } from './tool-identity.js';

/** A registered tool: its frozen definition, its executor and its argument validator. */
export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly executor: ToolExecutor;
  /** Validates model arguments against the definition's schema; never throws for bad input. */
  readonly validate: ArgumentValidateFn;
}

/** The model-visible definitions of a set of tools and the digest that pins them. */
export interface ToolRegistrySnapshot {
  /** Sorted by name, then by version number (v2 before v10). */
  readonly definitions: readonly ToolDefinition[];
  /** `sha256:` digest of the canonical JSON of `definitions`. */
  readonly digest: string;
}

/** Distinct selector lists whose snapshots are kept; beyond it the cache starts over. */
const MAX_CACHED_SNAPSHOTS = 256;

interface Entry extends RegisteredTool {
  readonly canonical: string;
}

/**
 * The trusted, instance-owned catalogue of tools (no global state). Built by worker composition:
 * definitions are model-visible, executors stay in the worker. Several versions of one name coexist;
 * a run pins the versions it started with through {@link ToolRegistry.snapshot}.
 *
 * Registration rules and every error code: docs/extending.md.
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly validator = new ArgumentValidator();
  /** Snapshots by selector list (`''` for all tools), dropped on every registration. */
  private readonly snapshots = new Map<string, ToolRegistrySnapshot>();

  /**
   * Registers a tool. Registering the same name and version again with a canonically equal
   * definition and the same executor object is a no-op; anything else under that name and version
   * is a conflict. The definition is copied and frozen.
   *
   * @throws {RegistryError} the errors of `validateToolDefinition` (`registry.invalid_definition`,
   *   `registry.invalid_name`, `registry.invalid_version`, `registry.unknown_effect`,
   *   `registry.invalid_description`, `registry.schema_*`).
   * @throws {InvalidExecutorError} `registry.invalid_executor` when `execute` is not a function,
   *   `reconcile` is present but not a function, or a read tool has `reconcile`.
   * @throws {ToolConflictError} `registry.conflict` with reason `definition_differs` or `executor_differs`.
   */
  register(definition: ToolDefinition, executor: ToolExecutor): void {
    const checked = validateToolDefinition(definition);
    const key = toolKey(checked.name, checked.version);
    assertExecutor(key, checked, executor);
    const canonical = canonicalJson(checked);
    const existing = this.entries.get(key);
    if (existing !== undefined) {
      if (existing.canonical !== canonical)
        throw new ToolConflictError(checked.name, checked.version, 'definition_differs');
      if (existing.executor !== executor)
        throw new ToolConflictError(checked.name, checked.version, 'executor_differs');
      return;
    }
    this.snapshots.clear();
    this.entries.set(key, {
      definition: checked,
      executor,
      validate: this.validator.validatorFor(checked),
      canonical,
    });
  }

  /**
   * The tool registered under exactly `name` and `version`.
   *
   * @throws {ToolNotFoundError} `registry.not_found` when there is none.
   */
  get(name: string, version: string): RegisteredTool {
    const entry = this.entries.get(toolKey(name, version));
    if (entry === undefined) throw new ToolNotFoundError(name, version);
    return { definition: entry.definition, executor: entry.executor, validate: entry.validate };
  }

  /** True when a tool is registered under exactly `name` and `version`. */
  has(name: string, version: string): boolean {
    return this.entries.has(toolKey(name, version));
  }

  /** All registered definitions, sorted by name then version. */
  list(): ToolDefinition[] {
    return [...this.entries.values()].map((e) => e.definition).sort(compareDefinitions);
  }

  /**
   * Validates a model's call: a `tool.unknown` rejection when the exact name and version are not
   * registered, else the argument validation of that tool. Never throws for untrusted input.
   */
  validateCall(name: unknown, version: unknown, args: unknown): ArgumentValidationResult {
    const entry =
      typeof name === 'string' && typeof version === 'string'
        ? this.entries.get(toolKey(name, version))
        : undefined;
    if (entry === undefined) return unknownToolRejection(name, version);
    return entry.validate(args);
  }

  /**
   * Definitions and their digest, to pin in a run. `names` selects tools: a bare name selects all
   * registered versions of it, `name@vN` exactly one; without `names`, every tool. Each definition
   * appears once however many selectors match it.
   *
   * @throws {ToolNotFoundError} `registry.not_found` when a selector matches no registered tool.
   * @throws {InvalidToolNameError} `registry.invalid_name` when a selector is malformed.
   */
  snapshot(names?: readonly string[]): ToolRegistrySnapshot {
    // Every run pins a snapshot; the digest (canonical JSON + sha256 of the definitions) is computed
    // once per selector list until the next registration.
    const cacheKey = names === undefined ? '' : JSON.stringify(['names', ...names]);
    let snap = this.snapshots.get(cacheKey);
    if (snap === undefined) {
      const all = this.list();
      const definitions = names === undefined ? all : all.filter(selector(all, names));
      snap = { definitions, digest: jsonDigest(definitions) };
      if (this.snapshots.size >= MAX_CACHED_SNAPSHOTS) this.snapshots.clear();
      this.snapshots.set(cacheKey, snap);
    }
    return { definitions: [...snap.definitions], digest: snap.digest };
  }
}

function selector(all: readonly ToolDefinition[], names: readonly string[]): (d: ToolDefinition) => boolean {
  const exact = new Set<string>();
  const bare = new Set<string>();
  for (const ref of names) {
    const at = ref.lastIndexOf('@');
    const name = at === -1 ? ref : ref.slice(0, at);
    assertToolName(name);
    const matched =
      at === -1 ? all.some((d) => d.name === name) : all.some((d) => toolKey(d.name, d.version) === ref);
    if (!matched) throw new ToolNotFoundError(name, at === -1 ? undefined : ref.slice(at + 1));
    if (at === -1) bare.add(name);
    else exact.add(ref);
  }
  return (d) => bare.has(d.name) || exact.has(toolKey(d.name, d.version));
}

function compareDefinitions(a: ToolDefinition, b: ToolDefinition): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return versionNumber(a.version) - versionNumber(b.version);
}

function versionNumber(version: string): number {
  return TOOL_VERSION_PATTERN.test(version) ? Number(version.slice(1)) : 0;
}

function assertExecutor(
  key: string,
  definition: ToolDefinition,
  executor: unknown,
): asserts executor is ToolExecutor {
  if (typeof executor !== 'object' || executor === null) throw new InvalidExecutorError(key, 'not an object');
  const { execute, reconcile } = executor as Partial<Record<keyof ToolExecutor, unknown>>;
  if (typeof execute !== 'function') throw new InvalidExecutorError(key, 'execute is not a function');
  if (reconcile !== undefined) {
    if (typeof reconcile !== 'function') throw new InvalidExecutorError(key, 'reconcile is not a function');
    if (definition.effect === 'read')
      throw new InvalidExecutorError(key, 'reconcile is only for write tools');
  }
}
