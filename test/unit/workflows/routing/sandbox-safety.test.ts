import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_FORBIDDEN } from '../../../support/sandbox-forbidden.js';
import { describe, expect, it } from 'vitest';

/**
 * The router's and the planner's cores run inside the Temporal workflow sandbox: they import only zod,
 * the contract, the policy's predicates and types, the runner's route-decision type, the router's core
 * (the planner) and their own modules, and read no clock, randomness, timer or process state and do
 * nothing asynchronous. (The routed profile, `src/workflows/routed`, is runner code.)
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const allowedTypeOnly = [path.join(repo, 'src/workflows/runner/graph-definition.ts')];
const forbidden: [RegExp, string][] = [[/\bDate\b/, 'Date'], ...SANDBOX_FORBIDDEN];

describe.each([
  ['routing', ['src/contract', 'src/workflows/policy', 'src/workflows/routing'], 10],
  [
    'planning',
    ['src/contract', 'src/workflows/policy', 'src/workflows/routing', 'src/workflows/planning'],
    4,
  ],
] as const)('%s: workflow sandbox safety', (folder, dirs, atLeast) => {
  const dir = path.join(repo, 'src/workflows', folder);
  const allowed = dirs.map((d) => path.join(repo, d));
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));

  it('finds the sources', () => {
    expect(sources.length).toBeGreaterThan(atLeast);
  });

  it.each(sources.map((f) => [path.relative(repo, f), f]))(
    '%s imports and reads only what is allowed',
    (_rel, file) => {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^(import|export)(\s+type)?[^;]*?from\s+'([^']+)'/gms)) {
        const [, , typeOnly, spec] = m;
        if (spec === 'zod') continue;
        expect(spec, `import ${spec}`).toMatch(/^\.\.?\//);
        const target = path.resolve(path.dirname(file), spec!.replace(/\.js$/, '.ts'));
        const ok =
          allowed.some((d) => target.startsWith(d + path.sep)) ||
          (typeOnly !== undefined && allowedTypeOnly.includes(target));
        expect(ok, `${spec} from ${path.relative(repo, file)}`).toBe(true);
      }
      for (const [pattern, what] of forbidden) expect(pattern.test(text), what).toBe(false);
    },
  );
});
