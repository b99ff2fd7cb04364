import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_FORBIDDEN } from '../../support/sandbox-forbidden.js';

/**
 * apps/retail/workflow/ runs inside the Temporal workflow sandbox (tool definitions, capability
 * domains, fact deriver, policy, action describer): it imports only its own files, the contract and
 * the workflow-safe entry points of src/workflows, and reads no clock, randomness, timer or process
 * state and does nothing asynchronous.
 */
const repo = path.resolve(import.meta.dirname, '../../..');
const dir = path.join(repo, 'apps/retail/workflow');
const allowedDirs = [
  'apps/retail/workflow',
  'src/contract',
  'src/workflows/policy',
  'src/workflows/routing',
].map((d) => path.join(repo, d));
const allowedFiles = [path.join(repo, 'src/workflows/index.ts')];
const sources = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => path.join(dir, f));
const forbidden: [RegExp, string][] = [[/\bDate\b/, 'Date'], ...SANDBOX_FORBIDDEN];

describe('apps/retail/workflow: workflow sandbox safety', () => {
  it('finds the sources, the policy files among them', () => {
    const names = sources.map((f) => path.basename(f));
    for (const f of [
      'retail-facts.ts',
      'retail-policy.ts',
      'retail-policy-rules.ts',
      'retail-reason-codes.ts',
      'retail-describe.ts',
      'retail-domains.ts',
    ])
      expect(names).toContain(f);
  });

  it.each(sources.map((f) => [path.relative(repo, f), f]))(
    '%s imports and reads only what is allowed',
    (_rel, file) => {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^(import|export)(\s+type)?[^;]*?from\s+'([^']+)'/gms)) {
        const spec = m[3]!;
        expect(spec, `import ${spec}`).toMatch(/^\.\.?\//);
        const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
        const ok =
          allowedDirs.some((d) => target.startsWith(d + path.sep)) ||
          allowedFiles.includes(target) ||
          target === path.join(repo, 'src/contract/index.ts');
        expect(ok, `${spec} from ${path.relative(repo, file)}`).toBe(true);
      }
      // Tool descriptions are prose ("already processed."): the forbidden names are looked for outside strings.
      const code = text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, "''");
      for (const [pattern, what] of forbidden) expect(pattern.test(code), what).toBe(false);
    },
  );
});
