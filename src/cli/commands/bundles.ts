import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { isHarnessError } from '../../contract/errors.js';
import {
  bundleDigest,
  loadBundleCatalog,
  targetOf,
  type BundleCatalog,
  type LoadedBundle,
} from '../../activities/bundles/bundle-catalog.js';
import { parseBundle, readDataFile } from '../../activities/bundles/bundle-file.js';
import { CliError, EXIT, notFoundError, usageError } from '../errors.js';
import { table, type Output } from '../output.js';
import { versionedName } from '../../contract/versioned-name.js';

export interface BundlesDirOptions {
  /** The bundles folder (default HARNESS_BUNDLES). */
  readonly dir?: string;
}

/** The folder the flags or HARNESS_BUNDLES name. @throws CliError exit 2 when neither does. */
function folderOf(o: BundlesDirOptions, env: NodeJS.ProcessEnv): string {
  const dir = o.dir ?? env.HARNESS_BUNDLES?.trim();
  if (!dir) throw usageError('name the bundles folder with --dir or HARNESS_BUNDLES');
  return dir;
}

/**
 * Loads a folder as a worker would.
 * @throws CliError `bundle.invalid` (exit 2) with the loader's message (the file and the field).
 */
function load(dir: string): BundleCatalog {
  try {
    return loadBundleCatalog(dir);
  } catch (err) {
    if (isHarnessError(err)) throw new CliError(err.code, err.message, EXIT.usage, { ...err.details });
    throw err;
  }
}

/** The arms of the folder's rollout a bundle is in. */
function armsOf(c: BundleCatalog, key: string): string[] {
  const r = c.rollout;
  if (!r) return [];
  const inStable = r.stable.prompts.includes(key) || r.stable.policies.includes(key);
  const inCandidate =
    !!r.candidate && (r.candidate.prompts.includes(key) || r.candidate.policies.includes(key));
  return [...(inStable ? ['stable'] : []), ...(inCandidate ? [`candidate ${r.candidate!.percent}%`] : [])];
}

/**
 * `harness bundles list [--dir]`: every bundle version of the folder with its kind, what it fills,
 * its digest and the rollout arms it is in, then the rollout. Validates the folder first (exit 2 on
 * a bad file, naming it and the field). Needs no server.
 */
export function bundlesListCommand(o: BundlesDirOptions, out: Output, env = process.env): number {
  const c = load(folderOf(o, env));
  const rows = c.all().map((b) => ({
    key: b.key,
    kind: b.bundle.kind,
    target: targetOf(b.bundle),
    digest: b.digest,
    arms: armsOf(c, b.key),
    file: b.source,
  }));
  out.data({
    digest: c.digest,
    bundles: rows,
    rollout: c.rollout ?? null,
  });
  out.line(
    table(
      ['BUNDLE', 'KIND', 'FILLS', 'DIGEST', 'ARMS', 'FILE'],
      rows.map((r) => [r.key, r.kind, r.target, `${r.digest.slice(0, 19)}…`, r.arms.join(', '), r.file]),
    ),
  );
  const r = c.rollout;
  out.line(
    r
      ? `rollout ${r.id}: candidate ${r.candidate ? `${r.candidate.percent}% of new runs` : 'none'}` +
          (r.stable.modelRoute ? `; stable route ${r.stable.modelRoute}` : '') +
          (r.candidate?.modelRoute ? `; candidate route ${r.candidate.modelRoute}` : '')
      : 'no rollout config: new runs pin no bundle (prompts and policies in code)',
  );
  return EXIT.ok;
}

/**
 * `harness bundles validate [--dir]`: loads the folder exactly as a worker does at start. Exit 0 and
 * a summary when it is valid; exit 2 with `bundle.invalid` naming the file and the field when not.
 */
export function bundlesValidateCommand(o: BundlesDirOptions, out: Output, env = process.env): number {
  const dir = folderOf(o, env);
  const c = load(dir);
  out.data({ valid: true, digest: c.digest, bundles: c.all().length, rollout: c.rollout?.id ?? null });
  out.line(
    `${dir}: valid, ${c.all().length} bundle version(s)` +
      (c.rollout ? `, rollout ${c.rollout.id}` : ', no rollout config') +
      `, digest ${c.digest}`,
  );
  return EXIT.ok;
}

/** One difference between two bundles: a path of the canonical content and its two values. */
export interface BundleChange {
  readonly path: string;
  readonly from?: string;
  readonly to?: string;
}

/** Leaf values of a JSON value by path; a multi-line string is one leaf per line (`path#3`). */
function leaves(value: unknown, path: string, into: Map<string, string>): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => leaves(v, `${path}[${i}]`, into));
    if (value.length === 0) into.set(path, '[]');
  } else if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    for (const k of keys) leaves((value as Record<string, unknown>)[k], path ? `${path}.${k}` : k, into);
    if (keys.length === 0) into.set(path, '{}');
  } else if (typeof value === 'string' && value.includes('\n')) {
    value.split('\n').forEach((line, i) => into.set(`${path}#${i + 1}`, JSON.stringify(line)));
  } else {
    into.set(path, JSON.stringify(value));
  }
}

/** The differences between two bundles' canonical content (name and version included), by path. */
export function diffBundles(a: LoadedBundle, b: LoadedBundle): BundleChange[] {
  const la = new Map<string, string>();
  const lb = new Map<string, string>();
  leaves(a.bundle, '', la);
  leaves(b.bundle, '', lb);
  const paths = [...new Set([...la.keys(), ...lb.keys()])].sort();
  const changes: BundleChange[] = [];
  for (const p of paths) {
    const from = la.get(p);
    const to = lb.get(p);
    if (from === to) continue;
    changes.push({ path: p, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) });
  }
  return changes;
}

/** A bundle named by its key in the folder, or by a file path. */
function bundleOf(ref: string, o: BundlesDirOptions, env: NodeJS.ProcessEnv): LoadedBundle {
  if (existsSync(ref) && statSync(ref).isFile()) {
    try {
      const bundle = parseBundle(readDataFile(ref), basename(ref));
      return {
        key: versionedName(bundle.name, bundle.version),
        digest: bundleDigest(bundle),
        source: ref,
        bundle,
      };
    } catch (err) {
      if (isHarnessError(err)) throw new CliError(err.code, err.message, EXIT.usage, { ...err.details });
      throw err;
    }
  }
  const c = load(folderOf(o, env));
  const b = c.get(ref);
  if (!b) throw notFoundError(`no bundle ${ref} in the folder (and no such file)`, { bundle: ref });
  return b;
}

/**
 * `harness bundles diff <a> <b> [--dir]`: what changed between two bundles (keys in the folder, or
 * bundle files): each path of their canonical content that differs, `-` old and `+` new; lines of
 * multi-line text (instructions) compared one by one. Equal digests: identical content.
 */
export function bundlesDiffCommand(
  a: string,
  b: string,
  o: BundlesDirOptions,
  out: Output,
  env = process.env,
): number {
  const left = bundleOf(a, o, env);
  const right = bundleOf(b, o, env);
  const changes = diffBundles(left, right);
  out.data({
    a: { key: left.key, digest: left.digest },
    b: { key: right.key, digest: right.digest },
    identical: left.digest === right.digest,
    changes,
  });
  out.line(`--- ${left.key} ${left.digest}`);
  out.line(`+++ ${right.key} ${right.digest}`);
  if (changes.length === 0) out.line('identical content');
  for (const c of changes) {
    if (c.from !== undefined) out.line(`- ${c.path}: ${c.from}`);
    if (c.to !== undefined) out.line(`+ ${c.path}: ${c.to}`);
  }
  return EXIT.ok;
}
