import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_FORBIDDEN } from '../../../support/sandbox-forbidden.js';
import { describe, expect, it } from 'vitest';

/**
 * Policy, completion, authorization and NamedRegistry run inside the Temporal workflow sandbox: they
 * may import only zod, the Ed25519 verifier, the domain types, the sandbox tool helpers and each other, and must not read clocks, randomness, timers,
 * process state or do anything asynchronous.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const allowedDirs = [
  'src/contract',
  'src/workflows/policy',
  'src/workflows/completion',
  'src/workflows/authz',
  'src/workflows/tools',
].map((d) => path.join(repo, d));
/** Packages besides zod: the audited Ed25519 verifier decision tokens are checked with. */
const allowedPackages = ['zod', '@noble/curves/ed25519.js'];
const allowedFiles = [path.join(repo, 'src/registry/named-registry.ts')];

function files(dir: string): string[] {
  return readdirSync(path.join(repo, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(repo, dir, f));
}

const sources = [
  ...files('src/workflows/policy'),
  ...files('src/workflows/completion'),
  ...files('src/workflows/authz'),
  ...allowedFiles,
];

const forbidden: [RegExp, string][] = [
  [/\bDate\.now\s*\(/, 'Date.now()'],
  [/new Date\(\s*\)/, 'new Date() without an argument'],
  ...SANDBOX_FORBIDDEN,
];

describe('workflow sandbox safety', () => {
  it('finds the sources', () => {
    expect(sources.length).toBeGreaterThan(15);
  });

  it.each(sources.map((f) => [path.relative(repo, f), f]))(
    '%s imports only zod, the verifier, domain, policy, completion, authz and sandbox tools',
    (_rel, file) => {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s+'([^']+)'/g)) {
        if (spec === undefined || allowedPackages.includes(spec)) continue;
        expect(spec, `import ${spec}`).toMatch(/^\.\.?\//);
        const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
        const ok = allowedDirs.some((d) => target.startsWith(d + path.sep)) || allowedFiles.includes(target);
        expect(ok, `import ${spec} from ${file}`).toBe(true);
      }
      for (const [pattern, label] of forbidden) {
        const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
        expect(pattern.test(code), `${label} in ${file}`).toBe(false);
      }
    },
  );
});
