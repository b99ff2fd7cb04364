import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDemoRepo, type DemoRepo } from '../../apps/coding/demo-repo.js';
import { CODING_BRANCH } from '../../apps/coding/workflow/coding-profiles.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import { decide } from '../support/decisions.js';
import { readThenCallScript } from '../support/leak-script.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { scheduledActivities } from './runner-support.js';

/** A key-like secret in a workspace file (the guardrails' detector knows its shape). */
const SECRET = 'sk-live-C0mm1tMsgQ7wZtP4mWcR2vLk';
const PROFILE = { name: 'taint.files_git', version: 'v1' };

/** Read the credentials file, then commit README.md with `message`, then answer. */
const commitScript = (message: string): ModelScript =>
  readThenCallScript('git.commit', { branch: CODING_BRANCH, message, paths: ['README.md'] });

/**
 * Data read from tools (docs/guardrails.md): a secret the files app (the real MCP filesystem server)
 * read cannot leave through a commit message (the coding app's git.commit, real git) without a
 * person; rejected, nothing is committed; a clean message commits unasked after the same read.
 */
describe('data taint: a secret read from a file and a commit message (real MCP server, real git)', () => {
  let h: HarnessFixture;
  let demo: DemoRepo;
  const commits = (): string[] =>
    execFileSync('git', ['log', '--all', '--format=%s'], { cwd: demo.repoDir, encoding: 'utf8' })
      .trim()
      .split('\n');

  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'taint-commit-'));
    const workspace = join(base, 'workspace');
    mkdirSync(join(workspace, 'notes'), { recursive: true });
    writeFileSync(join(workspace, 'notes/creds.txt'), `DEPLOY_KEY=${SECRET}\n`);
    demo = createDemoRepo(join(base, 'git'));
    h = await createHarnessFixture('taint-commit', {
      mcp: { rootDir: workspace },
      coding: { repoDir: demo.repoDir, remoteDir: demo.remoteDir },
      scripts: {
        'scripted/commit-leak': commitScript(`Update README (deploy key ${SECRET})`),
        'scripted/commit-clean': commitScript('Update README'),
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const start = (route: string) =>
    h.start({ profile: PROFILE, modelRoute: route, task: { message: 'commit it' } });

  it('a commit message carrying the secret waits for a person; rejected, nothing is committed', async () => {
    const before = commits();
    const handle = await start('scripted/commit-leak');
    const waiting = await waitForState(handle, (v: RunView) => v.status === 'awaiting_human');
    expect(waiting.pendingAction).toMatchObject({ tool: 'git.commit' });
    // The pause's events reach the store with its flush, after the status the query shows.
    const events = await vi.waitUntil(
      async () => {
        const stored = await h.composition.store.listEvents(handle.workflowId);
        return stored.some((e) => e.type === 'run.paused') ? stored : undefined;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(events.find((e) => e.type === 'data.taint_held')?.data).toMatchObject({
      tool: 'git.commit',
      kinds: ['secret'],
    });
    // The person sees the call with the secret masked; no event holds it.
    expect(waiting.humanRequest?.requestSummary).toContain('[secret]');
    expect(waiting.humanRequest?.requestSummary).not.toContain(SECRET);
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(SECRET);
    await decide(handle, 'reject', { reason: 'credentials never go into history' }, waiting);
    await handle.result();
    const activities = await scheduledActivities(h.t.client.workflow.getHandle(handle.workflowId));
    expect(activities.filter((a) => a.tool === 'git.commit')).toEqual([]);
    expect(commits()).toEqual(before);
    expect(commits().join('\n')).not.toContain(SECRET);
  });

  it('a clean commit message goes through unasked after the same read', async () => {
    const handle = await start('scripted/commit-clean');
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('succeeded');
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.some((e) => e.type === 'data.tainted')).toBe(true);
    expect(events.some((e) => e.type === 'data.taint_held')).toBe(false);
    expect(commits()[0]).toBe('Update README');
  });
});
