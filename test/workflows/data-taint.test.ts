import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import { decide } from '../support/decisions.js';
import { readThenCallScript } from '../support/leak-script.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { scheduledActivities } from './runner-support.js';

/** A key-like secret in a workspace file (the guardrails' detector knows its shape). */
const SECRET = 'sk-live-Q3x9ZtP7mWcR2vLk8YhN4bJd';
const PROFILE = { name: 'mcp.files', version: 'v1' };
const POLICY = { name: 'mcp.files_root', version: 'v1' };

/** Read the credentials file, then write `content` to `path`, then answer. */
const leakScript = (path: string, content: string): ModelScript =>
  readThenCallScript('fs.write', { path, content });

/**
 * Data read from tools (docs/guardrails.md): a secret the files app read cannot leave through a file
 * write without a person's approval; a write without it goes through.
 */
describe('data taint on the real server and the real MCP filesystem server', () => {
  let h: HarnessFixture;
  let root: string;

  beforeAll(async () => {
    root = join(mkdtempSync(join(tmpdir(), 'taint-')), 'workspace');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, 'notes/creds.txt'), `OPENAI_API_KEY=${SECRET}\n`);
    h = await createHarnessFixture('data-taint', {
      mcp: { rootDir: root },
      scripts: {
        'scripted/taint-approved': leakScript('notes/approved.txt', `key: ${SECRET}`),
        'scripted/taint-rejected': leakScript('notes/rejected.txt', `the key is ${SECRET} (copy)`),
        'scripted/taint-clean': leakScript('notes/clean.txt', 'no credentials in here'),
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const start = (route: string) =>
    h.start({ profile: PROFILE, policy: POLICY, modelRoute: route, task: { message: 'tidy the notes' } });
  const writes = async (id: string) =>
    (await scheduledActivities(h.t.client.workflow.getHandle(id))).filter((a) => a.tool === 'fs.write');

  it('holds a write carrying the secret for a person; nothing is written until approved', async () => {
    const handle = await start('scripted/taint-approved');
    const waiting = await waitForState(handle, (v: RunView) => v.status === 'awaiting_human');
    expect(waiting.pendingAction).toMatchObject({ tool: 'fs.write' });
    expect(existsSync(join(root, 'notes/approved.txt'))).toBe(false);
    expect(await writes(handle.workflowId)).toEqual([]);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'data.tainted')?.data).toMatchObject({
      tool: 'fs.read',
      secrets: 1,
    });
    expect(events.find((e) => e.type === 'data.taint_held')?.data).toMatchObject({
      tool: 'fs.write',
      kinds: ['secret'],
    });
    // The digest is kept, never the secret; the person sees the call with the secret masked.
    expect(waiting.humanRequest?.requestSummary).toContain('key: [secret]');
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(SECRET);
    await decide(handle, 'approve', { reason: 'the key is rotated already' }, waiting);
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(readFileSync(join(root, 'notes/approved.txt'), 'utf8')).toBe(`key: ${SECRET}`);
  });

  it('a rejected hold writes nothing', async () => {
    const handle = await start('scripted/taint-rejected');
    const waiting = await waitForState(handle, (v: RunView) => v.status === 'awaiting_human');
    await decide(handle, 'reject', { reason: 'secrets stay where they are' }, waiting);
    await handle.result();
    expect(existsSync(join(root, 'notes/rejected.txt'))).toBe(false);
    expect(await writes(handle.workflowId)).toEqual([]);
  });

  it('a write without the secret goes through unasked after the same read', async () => {
    const handle = await start('scripted/taint-clean');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    expect(readFileSync(join(root, 'notes/clean.txt'), 'utf8')).toBe('no credentials in here');
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.some((e) => e.type === 'data.taint_held')).toBe(false);
    expect(events.some((e) => e.type === 'data.tainted')).toBe(true);
  });
});
