import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { childProcessEnv, defaultChildHome } from './child-env.js';

/** A working repository and the bare repository it pushes to. */
export interface DemoRepo {
  readonly repoDir: string;
  readonly remoteDir: string;
}

/**
 * `test.sh` of the demo repository: fails when README.md contains the word BROKEN, so a test can
 * make the pipeline fail by writing it.
 */
const TEST_SCRIPT = `#!/bin/sh
set -e
test -f README.md
if grep -q BROKEN README.md; then
  echo "README.md is marked BROKEN" >&2
  exit 1
fi
echo "all checks passed"
`;

function run(cwd: string, args: string[]): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: childProcessEnv({
      home: defaultChildHome(),
      identity: { name: 'Demo', email: 'demo@example.invalid' },
    }),
  });
}

/**
 * Create the coding example's demo under `baseDir`: a bare remote `remote.git`, a working
 * repository `repo` (README.md, test.sh; branch main pushed) and an uncommitted change of
 * README.md with `change` as its new content. Uses real git; throws when git fails.
 */
export function createDemoRepo(baseDir: string, change = '# Demo\n\nUpdated by the agent.\n'): DemoRepo {
  const base = resolve(baseDir);
  const repoDir = join(base, 'repo');
  const remoteDir = join(base, 'remote.git');
  mkdirSync(repoDir, { recursive: true });
  run(base, ['init', '--quiet', '--bare', '-b', 'main', remoteDir]);
  run(repoDir, ['init', '--quiet', '-b', 'main']);
  writeFileSync(join(repoDir, 'README.md'), '# Demo\n');
  writeFileSync(join(repoDir, 'test.sh'), TEST_SCRIPT, { mode: 0o755 });
  run(repoDir, ['add', 'README.md', 'test.sh']);
  run(repoDir, ['commit', '--quiet', '-m', 'Initial commit']);
  run(repoDir, ['push', '--quiet', remoteDir, 'main:main']);
  writeFileSync(join(repoDir, 'README.md'), change);
  return { repoDir, remoteDir };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: tsx apps/coding/demo-repo.ts <empty-directory>');
    process.exit(2);
  }
  const demo = createDemoRepo(dir);
  console.log(`export HARNESS_CODING_REPO=${demo.repoDir}`);
  console.log(`export HARNESS_CODING_REMOTE=${demo.remoteDir}`);
}
