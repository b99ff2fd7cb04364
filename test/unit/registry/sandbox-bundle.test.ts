import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { bundleWorkflowCode } from '@temporalio/worker';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const SANDBOX_ENTRY = fileURLToPath(new URL('../../../src/registry/sandbox.ts', import.meta.url));
const FULL_ENTRY = fileURLToPath(new URL('../../../src/registry/index.ts', import.meta.url));
const NODE_DIGEST = fileURLToPath(new URL('../../../src/activities/digest.ts', import.meta.url));

/** Bundles an entry for a platform without Node builtins; fails on any `node:` import. */
async function bundleNeutral(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'registry',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    logLevel: 'silent',
  });
  const file = out.outputFiles[0];
  if (file === undefined) throw new Error('no bundle output');
  return file.text;
}

/**
 * The argument validator and the schema subset check run inside the Temporal workflow sandbox: a
 * bundle with no Node builtins, evaluated in a fresh `vm` context where ajv's `new Function` code
 * generation must work.
 */
describe('registry in the workflow sandbox', () => {
  it('bundles without Node builtins and validates inside vm.runInNewContext', async () => {
    const code = await bundleNeutral(SANDBOX_ENTRY);
    const script = `${code}
      ;(() => {
        const def = registry.validateToolDefinition({
          name: 'refund.create', version: 'v1', description: 'Refund', effect: 'write',
          parameters: { type: 'object', additionalProperties: false, required: ['id'],
            properties: { id: { type: 'string', format: 'uuid' }, amount: { type: 'integer', maximum: 5 } } },
        });
        let schemaError = null;
        try {
          registry.validateToolDefinition({ name: 'x.y', version: 'v1', description: 'd', effect: 'read',
            parameters: { type: 'object', additionalProperties: false, properties: { a: { oneOf: [] } } } });
        } catch (err) { schemaError = { code: err.code, pointer: err.details.pointer }; }
        const calls = new registry.ToolCallValidator([def]);
        return JSON.stringify({
          good: calls.validate('refund.create', 'v1', { id: '123e4567-e89b-12d3-a456-426614174000', amount: 5 }),
          bad: calls.validate('refund.create', 'v1', { id: 'nope', amount: 6 }),
          unknown: calls.validate('refund.create', 'v2', {}).rejection.code,
          schemaError,
          hasProcess: typeof process !== 'undefined',
          hasRequire: typeof require !== 'undefined',
        });
      })()`;
    const result = JSON.parse(vm.runInNewContext(script, {}, { timeout: 5_000 }) as string) as Record<
      string,
      unknown
    >;
    expect(result.hasProcess).toBe(false);
    expect(result.hasRequire).toBe(false);
    expect(result.good).toEqual({
      ok: true,
      args: { id: '123e4567-e89b-12d3-a456-426614174000', amount: 5 },
    });
    expect(result.bad).toMatchObject({
      ok: false,
      rejection: {
        code: 'tool.invalid_arguments',
        errors: [
          { pointer: '/id', keyword: 'format' },
          { pointer: '/amount', keyword: 'maximum' },
        ],
      },
    });
    expect(result.unknown).toBe('tool.unknown');
    expect(result.schemaError).toEqual({
      code: 'registry.schema_unsupported',
      pointer: '/properties/a/oneOf',
    });
  });

  it('bundles the whole registry entry: the registry is sandbox-safe, digests included', async () => {
    const code = await bundleNeutral(FULL_ENTRY);
    expect(code).toContain('ToolRegistry');
    expect(code).not.toContain('node:crypto');
  });

  it("refuses to bundle the activities' digest, which uses node:crypto (the check can fail)", async () => {
    await expect(bundleNeutral(NODE_DIGEST)).rejects.toThrow(/node:crypto/);
  });

  it('is accepted by the Temporal workflow bundler', async () => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./fixtures/validator-workflow.ts', import.meta.url)),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    });
    expect(bundle.code).toContain('validateInSandbox');
    expect(bundle.code).toContain('tool.invalid_arguments');
  });
});
