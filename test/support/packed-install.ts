import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/devserver/config.js';

const run = promisify(execFile);
const BIG = 64 * 1024 * 1024;

/** `npm pack` this package (prepack builds dist/) into `dir`; returns the tarball's path. */
export async function packHarness(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await run('npm', ['pack', '--pack-destination', dir], { cwd: projectRoot, maxBuffer: BIG });
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
