/**
 * What importing each package entry loads, in a fresh Node process (entry-process.ts records every
 * module). `agent-harness/client` needs only a Temporal connection: no SQL drivers, no worker.
 * `agent-harness/workflow` is what an app's workflows file imports: nothing outside the sandbox (no Node
 * builtins, no drivers, no Temporal client or worker, no module of the rooms that do I/O).
 */
import { describe, expect, it } from 'vitest';
import { OPTIONAL_PACKAGES } from '../../../src/contract/optional-packages.js';
import {
  chainTo,
  importInFreshProcess,
  packageEntries,
  packageOf,
  type EntryProcessResult,
  type LoadRecord,
  type PackageEntry,
} from './entry-process.js';

/** What an entry may not load. */
interface LoadRules {
  readonly packages?: readonly string[];
  /** Repository folders (or files) whose modules it may not load. */
  readonly sources?: readonly string[];
  /** When set, repository modules must lie under one of these. */
  readonly onlySources?: readonly string[];
  /** No Node builtins, except these `importer -> builtin` pairs. */
  readonly noBuiltinsExcept?: readonly string[];
}

const DRIVERS_AND_WORKER = ['better-sqlite3', 'pg', '@temporalio/worker'];
/** Optional peer dependencies load on first use of their feature, never on import of an entry. */
const OPTIONAL = Object.keys(OPTIONAL_PACKAGES);
/** The run service's own: `agent-harness/service` is the feature fastify and jose are for. */
const SERVICE_PACKAGES = ['fastify', 'jose'];

const SANDBOX: LoadRules = {
  packages: [...DRIVERS_AND_WORKER, ...OPTIONAL, '@temporalio/client'],
  sources: ['src/activities', 'src/worker', 'src/client', 'src/service', 'src/cli'],
  onlySources: ['src/workflows', 'src/registry', 'src/contract'],
  // @noble/hashes' "node" export condition picks esm/cryptoNode.js (node:crypto) in plain Node; the
  // workflow bundle resolves its browser build (crypto.js), which names no builtin.
  noBuiltinsExcept: ['node_modules/@noble/hashes/esm/cryptoNode.js -> node:crypto'],
};

/** The rules per entry slug (package.json "exports"); an entry without rules is imported only. */
const RULES: Readonly<Record<string, LoadRules>> = {
  root: { packages: OPTIONAL },
  workflow: SANDBOX,
  worker: { packages: OPTIONAL },
  client: {
    packages: [...DRIVERS_AND_WORKER, ...OPTIONAL],
    sources: ['src/activities', 'src/worker', 'src/service', 'src/cli'],
  },
  contract: { ...SANDBOX, onlySources: ['src/contract'] },
  service: { packages: OPTIONAL.filter((p) => !SERVICE_PACKAGES.includes(p)) },
};

/** Each forbidden load with the chain that reached it. */
function violations(loads: readonly LoadRecord[], rules: LoadRules): string[] {
  const found: string[] = [];
  for (const { module, parent } of loads) {
    const pkg = packageOf(module);
    let why: string | undefined;
    if (pkg !== undefined && rules.packages?.includes(pkg)) why = `package ${pkg}`;
    else if (module.startsWith('node:') && rules.noBuiltinsExcept) {
      if (!rules.noBuiltinsExcept.includes(`${parent} -> ${module}`)) why = `builtin ${module}`;
    } else if (module.startsWith('src/')) {
      if (rules.sources?.some((s) => module === s || module.startsWith(`${s}/`))) why = `module ${module}`;
      else if (rules.onlySources && !rules.onlySources.some((s) => module.startsWith(`${s}/`)))
        why = `module ${module} (outside ${rules.onlySources.join(', ')})`;
    }
    // Report a package once, at the first of its modules the entry reached.
    if (why && !found.some((f) => f.startsWith(`${why}:`))) found.push(`${why}: ${chainTo(loads, module)}`);
  }
  return found;
}

const results = new Map<string, Promise<EntryProcessResult>>();
const loaded = (entry: PackageEntry): Promise<EntryProcessResult> => {
  let r = results.get(entry.slug);
  if (!r) results.set(entry.slug, (r = importInFreshProcess(entry)));
  return r;
};
const entry = (slug: string): PackageEntry => packageEntries().find((e) => e.slug === slug)!;
const modules = (r: EntryProcessResult): string[] => r.loads.map((l) => l.module);
const packages = (r: EntryProcessResult): Set<string | undefined> => new Set(modules(r).map(packageOf));

describe('package entries: what importing each one loads', () => {
  it('knows every entry of package.json "exports"', () => {
    expect(
      packageEntries()
        .map((e) => e.slug)
        .sort(),
    ).toEqual(Object.keys(RULES).sort());
  });

  for (const e of packageEntries()) {
    it(`${e.name} (${e.source}) imports in a fresh process and loads only what it may`, async () => {
      const r = await loaded(e);
      expect(r.runtimeExports.length, 'the entry exports values').toBeGreaterThan(0);
      expect(modules(r)).toContain(e.source);
      expect(violations(r.loads, RULES[e.slug] ?? {})).toEqual([]);
    }, 120_000);
  }

  it('sees what the workflow entry does load (zod, the Temporal workflow API, the run)', async () => {
    const r = await loaded(entry('workflow'));
    expect(packages(r)).toContain('zod');
    expect(packages(r)).toContain('@temporalio/workflow');
    expect(modules(r)).toContain('src/workflows/temporal/agent-run.ts');
    expect(modules(r)).toContain('src/contract/statuses.ts');
  }, 120_000);

  it('sees what the client entry does load (the Temporal client, startAgentRun)', async () => {
    const r = await loaded(entry('client'));
    expect(packages(r)).toContain('@temporalio/client');
    expect(modules(r)).toContain('src/client/start-run.ts');
    expect(modules(r).some((m) => m.startsWith('node:'))).toBe(true);
  }, 120_000);

  it('would report a forbidden load with its chain (the worker entry breaks both rules)', async () => {
    const r = await loaded(entry('worker'));
    const asClient = violations(r.loads, RULES.client!);
    expect(asClient.find((v) => v.startsWith('package @temporalio/worker: src/worker/index.ts -> '))).toMatch(
      / -> node_modules\/@temporalio\/worker\//,
    );
    const asSandbox = violations(r.loads, SANDBOX);
    expect(asSandbox.some((v) => v.startsWith('builtin node:'))).toBe(true);
    expect(asSandbox.some((v) => v.startsWith('module src/activities/'))).toBe(true);
    expect(asSandbox).toContain('module src/worker/index.ts: src/worker/index.ts');
    const outside = violations(r.loads, { onlySources: ['src/workflows'] });
    expect(outside.some((v) => v.startsWith('module src/contract/errors.ts (outside src/workflows): '))).toBe(
      true,
    );
  }, 120_000);

  it('sees the service entry load its own optional packages (so the rule above can fail)', async () => {
    const r = await loaded(entry('service'));
    for (const p of SERVICE_PACKAGES) expect(packages(r)).toContain(p);
  }, 120_000);
});
