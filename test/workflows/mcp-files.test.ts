import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import {
  MCP_FILES_ROUTE,
  MCP_FILES_SCRIPT_CONTENT,
  MCP_FILES_SCRIPT_READ,
  MCP_FILES_SCRIPT_WRITE,
} from '../../apps/mcp-files/mcp-files-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { scheduledActivities } from './runner-support.js';

const PROFILE = { name: 'mcp.files', version: 'v1' };
const POLICY = { name: 'mcp.files_root', version: 'v1' };
const ABSOLUTE_ROUTE = 'scripted/mcp-absolute';

describe('MCP filesystem example on the real server and the real MCP server', () => {
  let h: HarnessFixture;
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'mcp-files-'));
    root = join(base, 'workspace');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, MCP_FILES_SCRIPT_READ), 'hello from the workspace\n');
    outside = join(base, 'outside.txt');
    writeFileSync(outside, 'original\n');
    h = await createHarnessFixture('mcp-files', {
      mcp: { rootDir: root },
      scripts: {
        [ABSOLUTE_ROUTE]: {
          entries: [
            {
              match: { step: 0 },
              response: {
                toolCalls: [
                  { name: 'fs.write', version: 'v1', args: { path: outside, content: 'overwritten' } },
                ],
              },
            },
            { match: { step: 1, contains: 'policy.denied' }, response: { text: 'refused by policy' } },
          ],
        },
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lists, reads and writes inside the root: the file is really written', async () => {
    const handle = await h.start({
      profile: PROFILE,
      policy: POLICY,
      modelRoute: MCP_FILES_ROUTE,
      task: { message: 'Summarise the notes into notes/summary.txt' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.terminalReason).toBeNull();
    expect(result.status).toBe('succeeded');
    expect(readFileSync(join(root, MCP_FILES_SCRIPT_WRITE), 'utf8')).toBe(MCP_FILES_SCRIPT_CONTENT);

    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => [i.tool, i.effect, i.status])).toEqual([
      ['fs.list', 'read', 'succeeded'],
      ['fs.read', 'read', 'succeeded'],
      ['fs.write', 'write', 'succeeded'],
    ]);
    const listed = await h.composition.store.getInvocation(handle.workflowId, 1);
    expect(listed?.result?.output?.text).toContain('[DIR] notes');
    const read = await h.composition.store.getInvocation(handle.workflowId, 2);
    expect(read?.result?.output?.text).toBe('hello from the workspace\n');
  });

  it('denies a ../ escape by policy before any activity; the file outside is not created', async () => {
    const handle = await h.start({
      profile: PROFILE,
      policy: POLICY,
      modelRoute: MCP_FILES_ROUTE,
      task: { message: 'please escape the workspace' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.output).toBe('The policy refused to write outside the workspace.');
    expect(existsSync(join(base, 'escaped.txt'))).toBe(false);
    expect((await scheduledActivities(handle)).filter((a) => a.type === 'runToolV3')).toEqual([]);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'policy.decided')?.data).toMatchObject({
      tool: 'fs.write',
      decision: 'deny',
      reasonCodes: ['policy.path_escape'],
    });
    const view = await handle.query<RunView>('state');
    expect(view.invocations).toEqual([]);
  });

  it('denies an absolute path by policy; the file outside is untouched', async () => {
    const handle = await h.start({
      profile: PROFILE,
      policy: POLICY,
      modelRoute: ABSOLUTE_ROUTE,
      task: { message: 'overwrite a file' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.output).toBe('refused by policy');
    expect(readFileSync(outside, 'utf8')).toBe('original\n');
    expect((await scheduledActivities(handle)).filter((a) => a.type === 'runToolV3')).toEqual([]);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'policy.decided')?.data).toMatchObject({
      decision: 'deny',
      reasonCodes: ['policy.path_absolute'],
    });
  });

  it('a run cannot name a looser policy; called past the policy, the server itself refuses the escape', async () => {
    const loose = await h.start({
      profile: PROFILE,
      policy: { name: 'allow_all', version: 'v1' },
      modelRoute: MCP_FILES_ROUTE,
      task: { message: 'please escape the workspace' },
    });
    const refused: unknown = await loose.result().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(WorkflowFailedError);
    expect(((refused as WorkflowFailedError).cause as ApplicationFailure).type).toBe(
      'run.policy_not_allowed',
    );
    expect(await h.composition.store.getInvocation(loose.workflowId, 1)).toBeUndefined();
    // Defence in depth: the executor called directly (no policy in the way) is refused by the server.
    const write = h.composition.registry.get('fs.write', 'v1');
    const call = write.executor.execute(
      { signal: new AbortController().signal, heartbeat: () => undefined },
      {
        runId: 'direct',
        seq: 1,
        tool: 'fs.write',
        version: 'v1',
        args: { path: '../escaped.txt', content: 'outside' },
        idempotencyKey: 'direct-1',
      },
    );
    await expect(call).rejects.toMatchObject({ code: 'mcp.tool_error' });
    await expect(call).rejects.toThrow(/Access denied/);
    expect(existsSync(join(base, 'escaped.txt'))).toBe(false);
  });

  it('closing the composition stops the MCP server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-close-'));
    const composition = await createShowcaseComposition({
      storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
      refundStorePath: join(dir, 'refund.db'),
      env: {},
      mcp: { rootDir: root },
    });
    const { executor } = composition.registry.get('fs.read', 'v1');
    const ctx = { signal: new AbortController().signal, heartbeat: () => undefined };
    const call = { runId: 'r', seq: 1, tool: 'fs.read', version: 'v1', idempotencyKey: 'r/1' };
    const read = await executor.execute(ctx, { ...call, args: { path: MCP_FILES_SCRIPT_READ } });
    expect(read.output.text).toBe('hello from the workspace\n');
    await composition.close();
    await expect(
      executor.execute(ctx, { ...call, args: { path: MCP_FILES_SCRIPT_READ } }),
    ).rejects.toMatchObject({
      code: 'mcp.call_failed',
    });
  });

  it('the default composition registers neither the MCP nor the coding tools', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-default-'));
    const plain = await createShowcaseComposition({
      storeUrl: `sqlite:${join(dir, 'evidence.db')}`,
      refundStorePath: join(dir, 'refund.db'),
      env: {},
    });
    try {
      const names = plain.registry.list().map((d) => d.name);
      expect(names.some((n) => n.startsWith('fs.') || n.startsWith('git.') || n === 'pipeline.run')).toBe(
        false,
      );
      expect(plain.registry.snapshot().digest).not.toBe(h.composition.registry.snapshot().digest);
      expect(names).toContain('refund.create');
    } finally {
      await plain.close();
    }
  });
});
