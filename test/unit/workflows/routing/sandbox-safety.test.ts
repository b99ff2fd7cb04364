import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_FORBIDDEN } from '../../../support/sandbox-forbidden.js';
import { describe, expect, it } from 'vitest';

/**
 * The router's core runs inside the Temporal workflow sandbox: it imports only zod, the contract, the
 * policy's predicates and types, the runner's route-decision type and its own modules, and reads no
 * clock, randomness, timer or process state and does nothing asynchronous.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const dir = path.join(repo, 'src/workflows/routing');
const allowed = ['src/contract', 'src/workflows/policy', 'src/workflows/routing'].map((d) =>
  path.join(repo, d),
);
const allowedTypeOnly = [path.join(repo, 'src/workflows/runner/graph-definition.ts')];

const sources = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => path.join(dir, f));

const forbidden: [RegExp, string][] = [[/\bDate\b/, 'Date'], ...SANDBOX_FORBIDDEN];

describe('routing: workflow sandbox safety', () => {
  it('finds the sources', () => {
    expect(sources.length).toBeGreaterThan(10);
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
