/**
 * The packed tarball ships the docs its README and docs link to, so every relative link in a shipped
 * Markdown file resolves inside `node_modules/agent-harness` (issue 37: "docs links resolve from
 * node_modules"). The file list is npm's own (`npm pack --dry-run`, scripts off: nothing is built).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/devserver/config.js';
import { relativeLinks } from '../../support/markdown-links.js';

/** The files `npm pack` would put in the tarball, relative to the package root. */
function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: projectRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const [pack] = JSON.parse(out) as [{ files: { path: string }[] }];
  return new Set(pack.files.map((f) => f.path));
}

describe('the packed tarball and its docs', () => {
  const files = packedFiles();

  it('reads inline, image, reference and HTML links, not code or absolute URLs', () => {
    const md = [
      'See [a](a.md), ![b](img/b.png "B") and [c](<c d.md#part>), [web](https://x.example/y.md), [top](#top).',
      '[ref]: ref.md',
      '<a href="html.md">h</a> and `[code](code.md)`',
      '```md',
      '[fenced](fenced.md)',
      '```',
    ].join('\n');
    expect(relativeLinks(md)).toEqual(['a.md', 'img/b.png', 'c d.md', 'ref.md', 'html.md']);
  });

  it('ships the README, the quickstart and every doc the README lists', () => {
    for (const f of ['README.md', 'docs/quickstart.md', 'docs/extending.md', 'docs/signals.md'])
      expect(files, f).toContain(f);
  });

  it('every relative link in a shipped Markdown file points at a shipped file', () => {
    const dead: string[] = [];
    const markdown = [...files].filter((f) => f.endsWith('.md'));
    expect(markdown.length).toBeGreaterThan(5);
    for (const md of markdown) {
      for (const target of relativeLinks(readFileSync(join(projectRoot, md), 'utf8'))) {
        const resolved = normalize(join(dirname(md), decodeURIComponent(target)));
        if (!files.has(resolved)) dead.push(`${md} -> ${target}`);
      }
    }
    expect(dead).toEqual([]);
  });
});
