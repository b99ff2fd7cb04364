import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../../src/contract/errors.js';
import type { JsonSchema, ToolContext, ToolExecution } from '../../../../src/contract/tool.js';
import type { McpToolMapping, McpToolSet } from '../../../../src/activities/mcp/index.js';
import { connectMcpTools } from '../../../../src/activities/mcp/index.js';
import { ToolRegistry } from '../../../../src/registry/index.js';
import {
  filesystemServer,
  freshRoot,
  pidsMentioning,
  removeRoots,
  waitForNoProcess,
} from './filesystem-server.js';

afterAll(removeRoots);

function closed(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: 'object', additionalProperties: false, properties, required };
}

const PATH = { type: 'string', minLength: 1 };

const MAPPING: McpToolMapping = {
  read_file: {
    name: 'fs.read_file',
    version: 'v1',
    effect: 'read',
    pathFields: ['/path'],
    narrowSchema: closed({ path: PATH, head: { type: 'number', minimum: 1 } }, ['path']),
  },
  list_directory: {
    name: 'fs.list_directory',
    version: 'v1',
    effect: 'read',
    description: 'List the entries of a directory under the workspace root',
    pathFields: ['/path'],
    narrowSchema: closed({ path: PATH }, ['path']),
  },
  write_file: {
    name: 'fs.write_file',
    version: 'v1',
    effect: 'write',
    pathFields: ['/path'],
    narrowSchema: closed({ path: PATH, content: { type: 'string', maxLength: 200_000 } }, [
      'path',
      'content',
    ]),
  },
  // Annotated readOnlyHint: true by the server; the trusted mapping says write, and write it is.
  get_file_info: {
    name: 'fs.file_info',
    version: 'v1',
    effect: 'write',
    narrowSchema: closed({ path: PATH }, ['path']),
  },
};

function context(signal: AbortSignal = new AbortController().signal, beats: unknown[] = []): ToolContext {
  return { signal, heartbeat: (d) => beats.push(d) };
}

let seq = 0;
async function call(
  registry: ToolRegistry,
  tool: string,
  args: Record<string, unknown>,
  ctx = context(),
): Promise<ToolExecution> {
  const registered = registry.get(tool, 'v1');
  const checked = registered.validate(args);
  if (!checked.ok) throw new Error(`arguments rejected: ${checked.rejection.message}`);
  seq += 1;
  return registered.executor.execute(ctx, {
    runId: 'run-1',
    seq,
    tool,
    version: 'v1',
    args: checked.args,
    idempotencyKey: `run-1:${seq}`,
  });
}

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isHarnessError(err)) return err.code;
    throw err;
  }
  return 'no error';
}

describe('MCP adapter against the real filesystem server', () => {
  const root = freshRoot();
  const registry = new ToolRegistry();
  let mcp: McpToolSet;

  beforeAll(async () => {
    mcp = await connectMcpTools({ server: filesystemServer(root), mapping: MAPPING, registry });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('registers exactly the mapped tools with the mapped name, version and effect', () => {
    expect(registry.list().map((d) => `${d.name}@${d.version}:${d.effect}`)).toEqual([
      'fs.file_info@v1:write',
      'fs.list_directory@v1:read',
      'fs.read_file@v1:read',
      'fs.write_file@v1:write',
    ]);
    expect(mcp.tools.map((t) => t.mcpName)).toEqual([
      'read_file',
      'list_directory',
      'write_file',
      'get_file_info',
    ]);
    expect(registry.has('fs.move_file', 'v1')).toBe(false);
    expect(registry.list().some((d) => /move|edit|create|search/.test(d.name))).toBe(false);
  });

  it('takes descriptions from the mapping or else from the server', () => {
    expect(registry.get('fs.list_directory', 'v1').definition.description).toBe(
      'List the entries of a directory under the workspace root',
    );
    expect(registry.get('fs.read_file', 'v1').definition.description.length).toBeGreaterThan(10);
  });

  it('ignores the readOnlyHint annotation: a read-only annotated tool mapped as write is write', () => {
    expect(registry.get('fs.file_info', 'v1').definition.effect).toBe('write');
  });

  it('exports the path fields per harness tool name', () => {
    expect(mcp.pathFields).toEqual({
      'fs.read_file': ['/path'],
      'fs.list_directory': ['/path'],
      'fs.write_file': ['/path'],
      'fs.file_info': [],
    });
  });

  it('validates arguments against the narrowed, closed schema', () => {
    const rejected = registry.validateCall('fs.read_file', 'v1', { path: join(root, 'a'), tail: 3 });
    expect(rejected).toMatchObject({
      ok: false,
      rejection: { errors: [{ pointer: '/tail', keyword: 'additionalProperties' }] },
    });
  });

  it('writes, reads and lists through the registry executors', async () => {
    const file = join(root, 'notes.txt');
    const written = await call(registry, 'fs.write_file', { path: file, content: 'hello\nworld\n' });
    expect(String(written.output.text)).toContain('Successfully wrote');
    expect(readFileSync(file, 'utf8')).toBe('hello\nworld\n');

    const read = await call(registry, 'fs.read_file', { path: file });
    expect(read.output).toMatchObject({
      text: 'hello\nworld\n',
      truncated: false,
      textBytes: 12,
      blocks: [],
    });

    const head = await call(registry, 'fs.read_file', { path: file, head: 1 });
    expect(head.output.text).toBe('hello');

    const listed = await call(registry, 'fs.list_directory', { path: root });
    expect(String(listed.output.text)).toContain('[FILE] notes.txt');
  });

  it('turns an isError result into mcp.tool_error with the server text', async () => {
    try {
      await call(registry, 'fs.read_file', { path: '/etc/hostname' });
      expect.unreachable();
    } catch (err) {
      expect(isHarnessError(err, 'mcp.tool_error')).toBe(true);
      expect(String((err as { details: { text: string } }).details.text)).toContain('Access denied');
    }
  });

  it('bounds the output and says it was truncated', async () => {
    const big = join(root, 'big.txt');
    writeFileSync(big, 'abcdefghij\n'.repeat(10_000));
    const read = await call(registry, 'fs.read_file', { path: big });
    const text = String(read.output.text);
    expect(read.output.truncated).toBe(true);
    expect(read.output.textBytes).toBe(110_000);
    expect(text.startsWith('abcdefghij\nabcdefghij')).toBe(true);
    expect(text).toContain('[output truncated: showed 32768 of 110000 bytes]');
    expect(Buffer.byteLength(text)).toBeLessThan(32 * 1024 + 100);
    expect(read.output.structuredContentOmitted).toBe(true);
  });
});

describe('MCP adapter call limits', () => {
  it('times out a call to a stalled server, then works again once it resumes', async () => {
    const root = freshRoot();
    const registry = new ToolRegistry();
    const mcp = await connectMcpTools({
      server: filesystemServer(root),
      mapping: MAPPING,
      registry,
      callTimeoutMs: 400,
    });
    const [pid] = pidsMentioning(root);
    if (pid === undefined) throw new Error('server process not found');
    try {
      process.kill(pid, 'SIGSTOP');
      const started = Date.now();
      expect(await errorCode(call(registry, 'fs.list_directory', { path: root }))).toBe('mcp.timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
      process.kill(pid, 'SIGCONT');
      const listed = await call(registry, 'fs.list_directory', { path: root });
      expect(listed.output.text).toBe('');
    } finally {
      process.kill(pid, 'SIGCONT');
      await mcp.close();
    }
    await waitForNoProcess(root);
  });

  it('cancels a call when the caller aborts, and fails calls after close', async () => {
    const root = freshRoot();
    const registry = new ToolRegistry();
    const mcp = await connectMcpTools({
      server: filesystemServer(root),
      mapping: MAPPING,
      registry,
      maxOutputBytes: 5,
    });
    const [pid] = pidsMentioning(root);
    if (pid === undefined) throw new Error('server process not found');
    try {
      process.kill(pid, 'SIGSTOP');
      const abort = new AbortController();
      const pending = call(registry, 'fs.list_directory', { path: root }, context(abort.signal));
      setTimeout(() => abort.abort(), 100);
      expect(await errorCode(pending)).toBe('mcp.cancelled');
      process.kill(pid, 'SIGCONT');
      writeFileSync(join(root, 'small.txt'), 'exactly eleven');
      const read = await call(registry, 'fs.read_file', { path: join(root, 'small.txt') });
      expect(read.output.text).toBe('exact\n[output truncated: showed 5 of 14 bytes]');
    } finally {
      process.kill(pid, 'SIGCONT');
      await mcp.close();
    }
    await waitForNoProcess(root);
    expect(await errorCode(call(registry, 'fs.list_directory', { path: root }))).toBe('mcp.call_failed');
  });
});

describe('MCP adapter registration failures stop the server', () => {
  async function failure(mapping: McpToolMapping): Promise<{ code: string; root: string }> {
    const root = freshRoot();
    const code = await errorCode(
      connectMcpTools({ server: filesystemServer(root), mapping, registry: new ToolRegistry() }),
    );
    await waitForNoProcess(root);
    return { code, root };
  }

  it('rejects the open server schema when no narrowSchema closes it (registry.schema_not_closed)', async () => {
    const { code } = await failure({
      create_directory: { name: 'fs.mkdir', version: 'v1', effect: 'write' },
    });
    expect(code).toBe('registry.schema_not_closed');
  });

  it('rejects a mapped tool the server does not offer (mcp.tool_missing)', async () => {
    expect(
      (await failure({ delete_everything: { name: 'fs.rm', version: 'v1', effect: 'write' } })).code,
    ).toBe('mcp.tool_missing');
  });

  it('rejects a narrowSchema that adds a property or drops a required one (mcp.narrow_schema_mismatch)', async () => {
    const adds = await failure({
      list_directory: {
        name: 'fs.ls',
        version: 'v1',
        effect: 'read',
        narrowSchema: closed({ path: PATH, recursive: { type: 'boolean' } }, ['path']),
      },
    });
    expect(adds.code).toBe('mcp.narrow_schema_mismatch');
    const drops = await failure({
      write_file: {
        name: 'fs.write',
        version: 'v1',
        effect: 'write',
        narrowSchema: closed({ path: PATH, content: { type: 'string' } }, ['path']),
      },
    });
    expect(drops.code).toBe('mcp.narrow_schema_mismatch');
  });

  it('rejects a path field that is not a string property (mcp.invalid_mapping)', async () => {
    const { code } = await failure({
      read_file: { ...MAPPING.read_file!, pathFields: ['/head'] },
    });
    expect(code).toBe('mcp.invalid_mapping');
  });

  it('rejects an effect outside read|write from the mapping (registry.unknown_effect)', async () => {
    const { code } = await failure({
      list_directory: {
        name: 'fs.ls',
        version: 'v1',
        effect: 'readOnly' as 'read',
        narrowSchema: closed({ path: PATH }, ['path']),
      },
    });
    expect(code).toBe('registry.unknown_effect');
  });

  it('rejects a mapping that maps two MCP tools to one harness tool before starting anything (mcp.invalid_mapping)', async () => {
    const entry = {
      name: 'fs.ls',
      version: 'v1',
      effect: 'read',
      narrowSchema: closed({ path: PATH }, ['path']),
    } as const;
    expect((await failure({ list_directory: entry, get_file_info: entry })).code).toBe('mcp.invalid_mapping');
  });

  it('reports a server that cannot start (mcp.connect_failed) with its stderr', async () => {
    try {
      await connectMcpTools({
        server: {
          command: process.execPath,
          args: ['-e', 'process.stderr.write("boom: no config\\n"); process.exit(3)'],
        },
        mapping: {},
        registry: new ToolRegistry(),
        connectTimeoutMs: 5_000,
      });
      expect.unreachable();
    } catch (err) {
      expect(isHarnessError(err, 'mcp.connect_failed')).toBe(true);
      expect(String((err as { details: { stderrTail: string } }).details.stderrTail)).toContain(
        'boom: no config',
      );
    }
  });
});
