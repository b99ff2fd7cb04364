/**
 * docs/quickstart.md, as an outside team would run it: `npm pack` this package, install the tarball
 * into an empty folder, write exactly the files of the quickstart, and run them against the test
 * server to `succeeded`. The files come from the doc itself, so the doc cannot drift from what works.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../src/devserver/config.js';
import { installIntoEmptyProject, installLine, packHarness } from '../support/packed-install.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const run = promisify(execFile);

/** The quickstart's files: each fenced block that follows a `<!-- file: NAME -->` line. */
function quickstartFiles(): Map<string, string> {
  const doc = readFileSync(join(projectRoot, 'docs', 'quickstart.md'), 'utf8');
  const files = new Map<string, string>();
  for (const m of doc.matchAll(/<!-- file: (\S+) -->\n```js\n([\s\S]*?)```/g)) files.set(m[1]!, m[2]!);
  return files;
}

describe('the quickstart, from the packed tarball', () => {
  it(
    'installs into an empty project and runs the quickstart to succeeded',
    { timeout: 900_000 },
    async () => {
      const files = quickstartFiles();
      expect([...files.keys()]).toEqual(['workflows.mjs', 'tools.mjs', 'main.mjs']);
      const lines = [...files.values()].reduce((n, text) => n + text.trimEnd().split('\n').length, 0);
      expect(lines, 'the quickstart stays under 60 lines').toBeLessThan(60);

      const dir = mkdtempSync(join(tmpdir(), 'harness-quickstart-'));
      const tarball = await packHarness(join(dir, 'pack')); // prepack builds dist/ first
      const listing = await run('tar', ['-tzf', tarball], { maxBuffer: 64 * 1024 * 1024 });
      const packed = listing.stdout.split('\n');
      for (const entry of ['workflows', 'worker', 'client', 'contract']) {
        expect(packed).toContain(`package/dist/src/${entry}/index.js`);
        expect(packed).toContain(`package/dist/src/${entry}/index.d.ts`);
      }
      expect(packed.filter((f) => f.startsWith('package/apps/') || /^package\/src\/.*\.ts$/.test(f))).toEqual(
        [],
      );

      const project = join(dir, 'shop-agent');
      // The doc's own install line, with the tarball for agent-harness: the Temporal SDK is the app's
      // (peer dependencies), and so is the optional SQLite driver the quickstart's store needs.
      const packages = installLine(readFileSync(join(projectRoot, 'docs', 'quickstart.md'), 'utf8'));
      expect(packages).toContain('agent-harness');
      await installIntoEmptyProject(project, tarball, packages);
      // The docs the quickstart links to are in the installed package (issue 37: no dead links).
      const installedDocs = join(project, 'node_modules', 'agent-harness', 'docs');
      const quickstart = readFileSync(join(installedDocs, 'quickstart.md'), 'utf8');
      const linked = [...quickstart.matchAll(/\]\(([a-z-]+\.md)\)/g)].map((m) => m[1]!);
      expect(linked).toContain('extending.md');
      for (const doc of linked) expect(existsSync(join(installedDocs, doc)), doc).toBe(true);
      for (const [name, text] of files) writeFileSync(join(project, name), text);
      const result = await run(process.execPath, ['main.mjs'], {
        cwd: project,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TASK_QUEUE: uniqueTaskQueue('quickstart'),
        },
        timeout: 180_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(result.stdout).toContain('awaiting_confirmation');
      expect(result.stdout).toContain('approval decision.accepted');
      expect(result.stdout).toContain('run succeeded');
      rmSync(dir, { recursive: true, force: true }); // ~350 MB; kept when the test fails, to look at
    },
  );
});
