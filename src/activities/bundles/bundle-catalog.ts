import { readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { BundlePin, BundleRef, BundleSlots, ResolvedBundles } from '../../contract/bundles.js';
import { sha256Digest } from '../digest.js';
import { BundleError } from './bundle-error.js';
import { formatIssuePath, parseBundle, readDataFile, type BundleFile } from './bundle-file.js';
import { assignArm } from './rollout-arm.js';
import { RolloutFileSchema, type RolloutFile } from './rollout-file.js';
import { versionedName } from '../../contract/versioned-name.js';

/** One loaded bundle: its file, its key and the digest of its canonical content. */
export interface LoadedBundle {
  readonly key: string;
  readonly digest: string;
  /** The file it was read from (name inside the folder). */
  readonly source: string;
  readonly bundle: BundleFile;
}

/** The profile or policy a bundle fills. */
export function targetOf(bundle: BundleFile): string {
  return bundle.kind === 'prompt' ? bundle.profile : bundle.policy;
}

/** The digest a run pins of a bundle: SHA-256 of its canonical JSON as validated (format and key order do not matter). */
export function bundleDigest(bundle: BundleFile): string {
  return sha256Digest(bundle);
}

const DATA_EXTENSIONS = ['.json', '.yaml', '.yml'];
const ROLLOUT_NAMES = ['rollout.yaml', 'rollout.yml', 'rollout.json'];

/** A resolved arm: for each profile / policy, the bundle that fills it. */
interface ArmContent {
  readonly prompts: ReadonlyMap<string, LoadedBundle>;
  readonly policies: ReadonlyMap<string, LoadedBundle>;
  readonly modelRoute?: string;
}

/**
 * A validated bundles folder (docs/control-plane.md): every bundle version a worker serves, and the
 * rollout that decides which of them new runs pin. Immutable once loaded: a change of rollout or
 * bundles takes a worker restart (runs in flight keep their pins).
 */
export class BundleCatalog {
  /** Digest of the whole folder as validated (every bundle's digest and the rollout; never the secret). */
  readonly digest: string;
  private readonly arms: { readonly stable: ArmContent; readonly candidate?: ArmContent } | undefined;
  /** The workers' rollout secret (see rolloutSecret); a private field, so it is in no serialization. */
  readonly #rolloutSecret: Uint8Array | undefined;

  /**
   * @param rolloutSecret the worker-side secret that salts arm assignment (`resolveRolloutSecret`);
   *   a catalog with a rollout and without a secret loads, but {@link pin} refuses until
   *   {@link withRolloutSecret} gives it one (composeWorker does).
   * @throws BundleError `bundle.invalid` when the rollout names a missing bundle, a bundle of the
   *   wrong kind, or two bundles for one profile or policy in one arm.
   */
  constructor(
    private readonly bundles: ReadonlyMap<string, LoadedBundle>,
    readonly rollout: RolloutFile | undefined,
    private readonly rolloutSource = 'rollout',
    rolloutSecret?: Uint8Array,
  ) {
    this.#rolloutSecret = rolloutSecret;
    this.digest = sha256Digest({
      bundles: Object.fromEntries([...bundles].map(([k, b]) => [k, b.digest])),
      rollout: rollout ?? null,
    });
    if (!rollout) {
      this.arms = undefined;
      return;
    }
    const stable = this.arm(rollout.stable, ['stable']);
    const candidate = rollout.candidate ? this.arm(rollout.candidate, ['candidate']) : undefined;
    this.arms = {
      stable,
      ...(candidate
        ? {
            candidate: {
              prompts: new Map([...stable.prompts, ...candidate.prompts]),
              policies: new Map([...stable.policies, ...candidate.policies]),
              ...((candidate.modelRoute ?? stable.modelRoute)
                ? { modelRoute: candidate.modelRoute ?? stable.modelRoute }
                : {}),
            },
          }
        : {}),
    };
  }

  private arm(
    spec: { prompts: readonly string[]; policies: readonly string[]; modelRoute?: string | undefined },
    path: (string | number)[],
  ): ArmContent {
    const pick = (keys: readonly string[], kind: 'prompt' | 'policy', field: string) => {
      const byTarget = new Map<string, LoadedBundle>();
      keys.forEach((key, i) => {
        const at = formatIssuePath([...path, field, i]);
        const b = this.bundles.get(key);
        if (!b) throw this.invalid(`${at}: no bundle ${key} in the folder`, at);
        if (b.bundle.kind !== kind)
          throw this.invalid(`${at}: ${key} is a ${b.bundle.kind} bundle, not a ${kind} bundle`, at);
        const target = targetOf(b.bundle);
        const other = byTarget.get(target);
        if (other) throw this.invalid(`${at}: ${key} and ${other.key} both fill ${target} in one arm`, at);
        byTarget.set(target, b);
      });
      return byTarget;
    };
    return {
      prompts: pick(spec.prompts, 'prompt', 'prompts'),
      policies: pick(spec.policies, 'policy', 'policies'),
      ...(spec.modelRoute !== undefined ? { modelRoute: spec.modelRoute } : {}),
    };
  }

  private invalid(message: string, path: string): BundleError {
    return new BundleError('bundle.invalid', `bundle ${this.rolloutSource}: ${message}`, {
      source: this.rolloutSource,
      path,
    });
  }

  /** True when arm assignment is salted with a worker-side secret (always true for a worker's catalog). */
  get salted(): boolean {
    return this.#rolloutSecret !== undefined;
  }

  /** The same folder with `secret` salting arm assignment (see {@link assignArm}). */
  withRolloutSecret(secret: Uint8Array): BundleCatalog {
    return new BundleCatalog(this.bundles, this.rollout, this.rolloutSource, secret);
  }

  /** Every bundle version of the folder, by key. */
  all(): readonly LoadedBundle[] {
    return [...this.bundles.values()].sort((a, b) => a.key.localeCompare(b.key));
  }

  get(key: string): LoadedBundle | undefined {
    return this.bundles.get(key);
  }

  /** The model route versions the rollout names (to check against the worker's routes file). */
  rolloutRoutes(): readonly string[] {
    const r = this.rollout;
    return [r?.stable.modelRoute, r?.candidate?.modelRoute].filter((x): x is string => x !== undefined);
  }

  /**
   * What a new run pins: its arm (by {@link assignArm} over its workflow id, salted with the workers'
   * rollout secret, so a starter cannot choose its arm by choosing the id) and the arm's bundles for
   * its profile and policy, with their content. Undefined when the folder has no rollout config.
   * The pin (arm and bucket, never the secret) is the start activity's result, so it is in history
   * and replays without the secret.
   * @throws BundleError `bundle.invalid` when the folder has a rollout and the catalog no secret.
   */
  pin(slots: BundleSlots): ResolvedBundles | undefined {
    const rollout = this.rollout;
    if (!rollout || !this.arms) return undefined;
    const secret = this.#rolloutSecret;
    if (secret === undefined)
      throw this.invalid(
        'the rollout needs a worker-side secret to assign arms (HARNESS_ROLLOUT_SECRET, or compose the worker with rolloutSecret)',
        'id',
      );
    const percent = rollout.candidate?.percent ?? 0;
    const { arm, bucket } = assignArm(rollout.id, percent, slots.workflowId, secret);
    const content = arm === 'candidate' && this.arms.candidate ? this.arms.candidate : this.arms.stable;
    const prompt = content.prompts.get(slots.profile);
    const policy = content.policies.get(slots.policy);
    const pin: BundlePin = {
      rollout: rollout.id,
      arm,
      bucket,
      candidatePercent: percent,
      ...(prompt ? { prompt: refOf(prompt) } : {}),
      ...(policy ? { policy: refOf(policy) } : {}),
      ...(content.modelRoute !== undefined ? { modelRoute: content.modelRoute } : {}),
    };
    return withContent(pin, prompt, policy);
  }

  /**
   * The content a run's pin names, from this worker's bundles: exactly those versions.
   * @throws BundleError `bundle.not_found` when this worker lacks a pinned version, `bundle.changed`
   *   when its bundle of that version has another digest than the run pinned.
   */
  resolve(pin: BundlePin): ResolvedBundles {
    const find = (ref: BundleRef | undefined): LoadedBundle | undefined => {
      if (!ref) return undefined;
      const b = this.bundles.get(ref.key);
      if (!b)
        throw new BundleError(
          'bundle.not_found',
          `bundle ${ref.key} (pinned by the run for ${ref.target}) is not in this worker's bundles folder`,
          { key: ref.key, pinned: ref.digest },
        );
      if (b.digest !== ref.digest || targetOf(b.bundle) !== ref.target)
        throw new BundleError(
          'bundle.changed',
          `bundle ${ref.key} on this worker is not the version the run pinned (pinned ${ref.digest}, served ${b.digest}): give a changed bundle a new version`,
          { key: ref.key, pinned: ref.digest, served: b.digest },
        );
      return b;
    };
    return withContent(pin, find(pin.prompt), find(pin.policy));
  }
}

/**
 * The pin of a run without a bundles folder: nothing to resolve, the in-code content.
 * @throws BundleError `bundle.not_found` when the pin names a bundle (this worker has none).
 */
export function resolveWithoutBundles(pin: BundlePin): ResolvedBundles {
  const ref = pin.prompt ?? pin.policy;
  if (ref)
    throw new BundleError(
      'bundle.not_found',
      `bundle ${ref.key} (pinned by the run for ${ref.target}) cannot be served: this worker has no bundles folder (HARNESS_BUNDLES)`,
      { key: ref.key, pinned: ref.digest },
    );
  return { pin };
}

function refOf(b: LoadedBundle): BundleRef {
  return { key: b.key, digest: b.digest, target: targetOf(b.bundle) };
}

function withContent(
  pin: BundlePin,
  prompt: LoadedBundle | undefined,
  policy: LoadedBundle | undefined,
): ResolvedBundles {
  return {
    pin,
    ...(prompt?.bundle.kind === 'prompt' ? { prompt: { instructions: prompt.bundle.instructions } } : {}),
    ...(policy?.bundle.kind === 'policy' ? { policy: { data: policy.bundle.data } } : {}),
  };
}

/**
 * Loads a bundles folder: every `*.json`, `*.yaml`, `*.yml` file is one bundle, except `rollout.*`,
 * the rollout config. Other files are ignored. `rolloutSecret` salts arm assignment (see
 * {@link BundleCatalog.pin}; `resolveRolloutSecret` finds the worker's).
 * @throws BundleError `bundle.invalid` naming the file and the first bad field (the worker does not
 *   start): an unreadable folder or file, a bad bundle, two files with the same `name@vN`, a bad rollout.
 */
export function loadBundleCatalog(
  dir: string,
  o: { readonly rolloutSecret?: Uint8Array } = {},
): BundleCatalog {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    throw new BundleError(
      'bundle.invalid',
      `bundles folder ${dir}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      { source: dir },
    );
  }
  const bundles = new Map<string, LoadedBundle>();
  let rollout: RolloutFile | undefined;
  let rolloutSource: string | undefined;
  for (const name of names) {
    if (!DATA_EXTENSIONS.includes(extname(name).toLowerCase())) continue;
    const value = readDataFile(join(dir, name));
    if (ROLLOUT_NAMES.includes(name.toLowerCase())) {
      if (rolloutSource)
        throw new BundleError(
          'bundle.invalid',
          `bundle ${name}: a second rollout config (${rolloutSource})`,
          {
            source: name,
          },
        );
      const parsed = RolloutFileSchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = formatIssuePath(issue?.path ?? []);
        throw new BundleError('bundle.invalid', `bundle ${name}: ${path}: ${issue?.message ?? 'invalid'}`, {
          source: name,
          path,
        });
      }
      rollout = parsed.data;
      rolloutSource = name;
      continue;
    }
    const bundle = parseBundle(value, name);
    const key = versionedName(bundle.name, bundle.version);
    const twin = bundles.get(key);
    if (twin)
      throw new BundleError('bundle.invalid', `bundle ${name}: ${key} is also defined in ${twin.source}`, {
        source: name,
        path: 'name',
      });
    bundles.set(key, { key, digest: bundleDigest(bundle), source: name, bundle });
  }
  return new BundleCatalog(bundles, rollout, rolloutSource, o.rolloutSecret);
}
