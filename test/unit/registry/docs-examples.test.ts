import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run as runMcpExample } from '../../../docs/examples/mcp-filesystem.js';
import { run as runRegisterExample } from '../../../docs/examples/register-tool.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLES = join(ROOT, 'docs/examples');

/** Code regions `// --- name ---` ... `// --- end name ---` of every example, whitespace-normalised. */
function exampleRegions(): string[] {
  const regions: string[] = [];
  for (const file of readdirSync(EXAMPLES).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(EXAMPLES, file), 'utf8');
    for (const m of text.matchAll(/\/\/ --- (\w+) ---\n([\s\S]*?)\n\s*\/\/ --- end \1 ---/g))
      regions.push(normalise(m[2] ?? ''));
  }
  return regions;
}

/** Drops whitespace and trailing commas, so a formatter rewrapping a quoted block does not matter. */
function normalise(code: string): string {
  return code.replace(/\s+/g, '').replace(/,([)\]}])/g, '$1');
}

describe('docs/extending.md examples', () => {
  it('type-check under the project compiler options', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-docs-tsc-'));
    try {
      const config = join(dir, 'tsconfig.json');
      writeFileSync(
        config,
        JSON.stringify({
          extends: join(ROOT, 'tsconfig.json'),
          compilerOptions: { noEmit: true, typeRoots: [join(ROOT, 'node_modules/@types')] },
          include: [join(EXAMPLES, '*.ts')],
        }),
      );
      const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
      const out = execFileSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8', timeout: 120_000 });
      expect(out).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('quote only code that exists in docs/examples', () => {
    const doc = readFileSync(join(ROOT, 'docs/extending.md'), 'utf8');
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => normalise(m[1] ?? ''));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const regions = exampleRegions();
    for (const block of blocks) expect(regions).toContain(block);
  });

  it('register-tool.ts runs as documented', async () => {
    const result = await runRegisterExample();
    expect(result.accepted).toEqual({ ok: true, args: { quarter: '2024-Q3' } });
    expect(result.rejected.ok).toBe(false);
    if (!result.rejected.ok) {
      expect(result.rejected.rejection.errors.map((e) => `${e.pointer}:${e.keyword}`).sort()).toEqual([
        '/pages:additionalProperties',
        '/quarter:pattern',
      ]);
      const doc = readFileSync(join(ROOT, 'docs/extending.md'), 'utf8');
      expect(doc).toContain(JSON.stringify(result.rejected.rejection.message).slice(1, -1));
    }
    expect(result.unknown).toMatchObject({ ok: false, rejection: { code: 'tool.unknown' } });
    expect(result.output).toEqual({ status: 'ready', quarter: '2024-Q3' });
    expect(result.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('mcp-filesystem.ts runs against the real filesystem server', async () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'harness-docs-mcp-')));
    try {
      writeFileSync(join(workspace, 'hello.txt'), 'hi');
      const result = await runMcpExample(workspace);
      expect(result.registered).toEqual(['fs.list_directory@v1', 'fs.write_file@v1']);
      expect(result.pathFields).toEqual({ 'fs.list_directory': ['/path'], 'fs.write_file': ['/path'] });
      expect(result.listing).toBe('[FILE] hello.txt');
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
