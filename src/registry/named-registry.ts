import { HarnessError } from '../contract/errors.js';

/** Anything registered by exact name and version (profiles, evaluators). */
export interface Named {
  readonly name: string;
  readonly version: string;
}

/** Options of a {@link NamedRegistry}. */
export interface NamedRegistryOptions<T extends Named> {
  /** What is registered, for messages and details: `profile`, `evaluator`. */
  kind: string;
  /**
   * Extra checks run before an item is stored; throw a {@link HarnessError} to refuse it.
   * Names and versions are always required to be non-empty strings.
   */
  validate?: (item: T) => void;
}

/**
 * A registry of items looked up by exact `name` and `version`: no ranges, no "latest". Items are
 * registered by trusted composition; events and models may only name what is here.
 *
 * Pure and synchronous (safe in the Temporal workflow sandbox).
 */
export class NamedRegistry<T extends Named> {
  readonly kind: string;
  private readonly items = new Map<string, Map<string, T>>();
  private readonly validate: ((item: T) => void) | undefined;

  constructor(options: NamedRegistryOptions<T>) {
    this.kind = options.kind;
    this.validate = options.validate;
  }

  /**
   * Add an item.
   * @throws HarnessError `registry.invalid_name` / `registry.invalid_version` when the name or version
   *   is empty or not a string (codes shared with the tool registry).
   * @throws HarnessError `registry.conflict` when the same name and version is already registered.
   * @throws whatever `validate` throws; nothing is stored then.
   */
  register(item: T): void {
    if (typeof item.name !== 'string' || item.name === '') {
      throw new HarnessError('registry.invalid_name', `${this.kind} needs a non-empty string name`, {
        kind: this.kind,
      });
    }
    if (typeof item.version !== 'string' || item.version === '') {
      throw new HarnessError(
        'registry.invalid_version',
        `${this.kind} ${item.name} needs a non-empty string version`,
        {
          kind: this.kind,
          name: item.name,
        },
      );
    }
    this.validate?.(item);
    const versions = this.items.get(item.name) ?? new Map<string, T>();
    if (versions.has(item.version)) {
      throw new HarnessError(
        'registry.conflict',
        `${this.kind} ${item.name}/${item.version} is already registered`,
        {
          kind: this.kind,
          name: item.name,
          version: item.version,
        },
      );
    }
    versions.set(item.version, item);
    this.items.set(item.name, versions);
  }

  /**
   * The item with exactly this name and version.
   * @throws HarnessError `registry.not_found` when there is none.
   */
  get(name: string, version: string): T {
    const item = this.find(name, version);
    if (item === undefined) {
      throw new HarnessError('registry.not_found', `${this.kind} ${name}/${version} is not registered`, {
        kind: this.kind,
        name,
        version,
      });
    }
    return item;
  }

  /** The item with exactly this name and version, or undefined. */
  find(name: string, version: string): T | undefined {
    return this.items.get(name)?.get(version);
  }

  /** True when exactly this name and version is registered. */
  has(name: string, version: string): boolean {
    return this.find(name, version) !== undefined;
  }

  /** Every item, ordered by name then version (code-unit order), independent of registration order. */
  list(): T[] {
    return [...this.items.keys()].sort(compare).flatMap((name) => {
      const versions = this.items.get(name) ?? new Map<string, T>();
      return [...versions.keys()].sort(compare).flatMap((v) => {
        const item = versions.get(v);
        return item === undefined ? [] : [item];
      });
    });
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
