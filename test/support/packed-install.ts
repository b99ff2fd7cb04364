import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/devserver/config.js';

const run = promisify(execFile);
const BIG = 64 * 1024 * 1024;

/** Held while one test process packs: two packs at once would both rebuild dist/ under each other. */
const PACK_LOCK = join(
  tmpdir(),
  `agent-harness-pack-${createHash('sha256').update(projectRoot).digest('hex').slice(0, 12)}.lock`,
);

async function withPackLock<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(PACK_LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock older than 3 minutes was left by a killed test process.
      const held = statSync(PACK_LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 180_000) rmSync(PACK_LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${PACK_LOCK} held for 5 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(PACK_LOCK, { recursive: true, force: true });
  }
}

/**
 * `npm pack` this package (prepack builds dist/) into `dir`, one test process at a time; returns
 * the tarball's path.
 */
export async function packHarness(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await withPackLock(() =>
    run('npm', ['pack', '--pack-destination', dir], { cwd: projectRoot, maxBuffer: BIG }),
  );
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${dir}`);
  return join(dir, tarball);
}

/**
 * An empty ESM project at `project` with `packages` installed, `agent-harness` standing for the
 * tarball (the rest come from the registry, or npm's cache). Returns npm's output.
 */
export async function installIntoEmptyProject(
  project: string,
  tarball: string,
  packages: readonly string[],
): Promise<string> {
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'outside', private: true, type: 'module' }),
  );
  const specs = packages.map((p) => (p === 'agent-harness' ? tarball : p));
  const { stdout, stderr } = await run(
    'npm',
    ['install', ...specs, '--no-audit', '--no-fund', '--prefer-offline'],
    {
      cwd: project,
      maxBuffer: BIG,
    },
  );
  return stdout + stderr;
}

/** The packages of the first `npm install ...` line in a Markdown text (a doc's install line). */
export function installLine(markdown: string): string[] {
  const m = markdown.match(/^npm install ([^#\n]+)/m);
  if (!m) throw new Error('no `npm install` line');
  return m[1]!.trim().split(/\s+/);
}
