/**
 * Imports one package entry in a fresh Node process (tsx, against the .ts source) and records every
 * module that import loads: ESM resolutions through a `node:module` register() hook, CommonJS requires
 * (and the builtins they name) through Module._load. Each record names the importing module, so a
 * forbidden load comes with the chain that reached it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { projectRoot } from '../../../src/devserver/config.js';

/** One package entry: its subpath in package.json "exports" and its source module. */
export interface PackageEntry {
  /** `agent-harness`, `agent-harness/client`... */
  readonly name: string;
  /** A short file-safe name: `root`, `client`... */
  readonly slug: string;
  /** The .ts source, relative to the repository root (`src/client/index.ts`). */
  readonly source: string;
}

/** The package's entries, read from package.json "exports" (dist/src/x.js is built from src/x.ts). */
export function packageEntries(): PackageEntry[] {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { default?: string }>;
  };
  const found: PackageEntry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (!file?.startsWith('./dist/src/') || !file.endsWith('.js')) continue;
    const rest = subpath === '.' ? '' : subpath.slice(2);
    found.push({
      name: rest ? `${pkg.name}/${rest}` : pkg.name,
      slug: rest || 'root',
      source: file.slice('./dist/'.length).replace(/\.js$/, '.ts'),
    });
  }
  return found;
}

/** One load: the module (a repository path, `node_modules/...` or `node:x`) and who imported it. */
export interface LoadRecord {
  readonly module: string;
  readonly parent: string | null;
}

export interface EntryProcessResult {
  /** Every module the entry's import reached (reachable from the entry through recorded imports). */
  readonly loads: readonly LoadRecord[];
  /** `Object.keys(await import(entry))`, sorted. */
  readonly runtimeExports: readonly string[];
}

const HOOKS = `
import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(out, JSON.stringify({ url: r.url, parent: context.parentURL ?? null }) + '\\n');
  return r;
}
`;

const RECORDER = `
import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const out = process.env.ENTRY_LOAD_RECORD;
register(new URL('./hooks.mjs', import.meta.url), { data: { out } });
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  let url = request;
  try {
    const file = Module._resolveFilename(request, parent, isMain);
    url = Module.isBuiltin(file) ? (file.startsWith('node:') ? file : 'node:' + file) : pathToFileURL(file).href;
  } catch {}
  const from = parent && parent.filename ? pathToFileURL(parent.filename).href : null;
  appendFileSync(out, JSON.stringify({ url, parent: from }) + '\\n');
  return load.apply(this, arguments);
};
`;

/** A URL as a stable name: `src/...` for the repository, `node_modules/...` for packages, `node:x`. */
export function moduleName(url: string): string {
  if (url.startsWith('node:')) return url;
  if (!url.startsWith('file:')) return url;
  const path = fileURLToPath(url);
  const nm = path.indexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + 1);
  return path.startsWith(projectRoot + '/') ? path.slice(projectRoot.length + 1) : path;
}

/** The package a `node_modules/...` module belongs to (`pg`, `@temporalio/worker`), else undefined. */
export function packageOf(module: string): string | undefined {
  const at = module.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const parts = module.slice(at + 'node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Imports `entry` in a fresh process and records what it loads and what it exports. */
export async function importInFreshProcess(entry: PackageEntry): Promise<EntryProcessResult> {
  const dir = mkdtempSync(join(tmpdir(), 'entry-loads-'));
  try {
    writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
    writeFileSync(join(dir, 'recorder.mjs'), RECORDER);
    const out = join(dir, 'loads.jsonl');
    writeFileSync(out, '');
    const entryUrl = pathToFileURL(join(projectRoot, entry.source)).href;
    const script = [
      `const m = await import(${JSON.stringify(entryUrl)});`,
      `process.stdout.write(JSON.stringify(Object.keys(m).sort()), () => process.exit(0));`,
    ].join('\n');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        pathToFileURL(join(dir, 'recorder.mjs')).href,
        '--input-type=module',
        '-e',
        script,
      ],
      {
        cwd: projectRoot,
        encoding: 'utf8',
        timeout: 90_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, ENTRY_LOAD_RECORD: out, NODE_OPTIONS: '' },
      },
    );
    const raw = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { url: string; parent: string | null });
    return {
      loads: reachableFrom(
        entry.source,
        raw.map((r) => ({ module: moduleName(r.url), parent: r.parent ? moduleName(r.parent) : null })),
      ),
      runtimeExports: JSON.parse(stdout) as string[],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The loads reachable from `root` (drops the loader's and the eval script's own), first parent kept. */
function reachableFrom(root: string, records: readonly LoadRecord[]): LoadRecord[] {
  const children = new Map<string, string[]>();
  for (const r of records) {
    if (r.parent === null || r.parent === r.module) continue;
    const list = children.get(r.parent) ?? [];
    list.push(r.module);
    children.set(r.parent, list);
  }
  const found = new Map<string, LoadRecord>([[root, { module: root, parent: null }]]);
  const queue = [root];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const child of children.get(at) ?? []) {
      if (found.has(child)) continue;
      found.set(child, { module: child, parent: at });
      queue.push(child);
    }
  }
  return [...found.values()];
}

/** The import chain from the entry to `module`: `src/client/index.ts -> ... -> node_modules/pg/...`. */
export function chainTo(loads: readonly LoadRecord[], module: string): string {
  const parentOf = new Map(loads.map((l) => [l.module, l.parent]));
  const chain = [module];
  for (let at = parentOf.get(module); at; at = parentOf.get(at)) chain.unshift(at);
  return chain.join(' -> ');
}
