/** The Layout section of the README matches the tree: every folder it names exists, every folder is named. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/devserver/config.js';

function layoutBlock(): string[] {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Layout'));
  const start = section.indexOf('```\n') + 4;
  return section.slice(start, section.indexOf('```', start)).split('\n');
}

/** Paths the block names: `a/b/` at the start of a line, and `x/` tokens indented under the last one. */
function namedPaths(lines: string[]): string[] {
  const out: string[] = [];
  let parent = '';
  for (const line of lines) {
    const top = /^([a-z][\w./-]*\/)(?:\s|$)/.exec(line);
    if (top) {
      parent = top[1]!;
      out.push(parent);
      continue;
    }
    if (/^ {2}\S/.test(line) && parent) {
      for (const token of line.trim().split(/\s+/)) {
        if (/^[a-z*][\w*-]*\/$/.test(token) && !token.startsWith('*')) out.push(parent + token);
      }
    }
  }
  return out;
}

const dirsOf = (dir: string): string[] =>
  readdirSync(join(projectRoot, dir)).filter((f) => statSync(join(projectRoot, dir, f)).isDirectory());

describe('README layout', () => {
  const lines = layoutBlock();
  const named = namedPaths(lines);

  it('names only folders that exist', () => {
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((p) => !existsSync(join(projectRoot, p)))).toEqual([]);
  });

  it('names every folder of src/, src/workflows/, src/activities/, src/worker/ and apps/', () => {
    const text = lines.join('\n');
    const missing: string[] = [];
    for (const dir of ['src', 'src/workflows', 'src/activities', 'src/worker', 'apps']) {
      for (const d of dirsOf(dir)) {
        const full = `${dir}/${d}/`;
        if (!named.includes(full) && !new RegExp(`(^|\\s)${d}/`, 'm').test(text)) missing.push(full);
      }
    }
    expect(missing).toEqual([]);
  });
});
