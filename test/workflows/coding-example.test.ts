import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCall, ToolContext } from '../../src/contract/tool.js';
import { CODING_BRANCH } from '../../apps/coding/workflow/coding-profiles.js';
import {
  CODING_CHANGE_STEPS,
  CODING_PIPELINE_ROUTE,
  CODING_PUSH_ROUTE,
} from '../../apps/coding/coding-script.js';
import { createCodingTools } from '../../apps/coding/coding-tools.js';
import { createDemoRepo, type DemoRepo } from '../../apps/coding/demo-repo.js';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';

const PUSH = { name: 'coding.push', version: 'v1' };
const PIPELINE = { name: 'coding.pipeline', version: 'v1' };

/** The agent claims success after pushing, without the separate verification call. */
const FORGED_ROUTE = 'scripted/coding-forged';
const FORGED_SCRIPT: ModelScript = {
  entries: [
    ...CODING_CHANGE_STEPS,
    {
      match: { step: 3 },
      response: { text: 'Pushed and verified: the remote has the branch.', toolCalls: [] },
    },
  ],
};

function gitOut(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function remoteSha(demo: DemoRepo, branch: string): string | undefined {
  const line = gitOut(demo.repoDir, ['ls-remote', demo.remoteDir, `refs/heads/${branch}`]);
  return line === '' ? undefined : line.split('\t')[0];
}

let fixtures: HarnessFixture[] = [];

async function codingFixture(name: string, change?: string): Promise<{ h: HarnessFixture; demo: DemoRepo }> {
  const demo = createDemoRepo(mkdtempSync(join(tmpdir(), `coding-${name}-`)), change);
  const h = await createHarnessFixture(`coding-${name}`, {
    coding: { repoDir: demo.repoDir, remoteDir: demo.remoteDir },
    scripts: { [FORGED_ROUTE]: FORGED_SCRIPT },
  });
  fixtures.push(h);
  return { h, demo };
}

afterEach(async () => {
  for (const h of fixtures) await h.close();
  fixtures = [];
});

describe('coding example on real git and the real server', () => {
  it('commits, pushes and verifies: succeeded, and the branch is really on the remote', async () => {
    const { h, demo } = await codingFixture('push');
    const handle = await h.start({
      profile: PUSH,
      modelRoute: CODING_PUSH_ROUTE,
      task: { message: 'Commit the README change and push it' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.terminalReason).toBeNull();
    expect(result.status).toBe('succeeded');

    const local = gitOut(demo.repoDir, ['rev-parse', `refs/heads/${CODING_BRANCH}`]);
    expect(remoteSha(demo, CODING_BRANCH)).toBe(local);
    expect(gitOut(demo.remoteDir, ['show', `${CODING_BRANCH}:README.md`])).toContain('Updated by the agent.');
    const message = gitOut(demo.repoDir, ['log', '-1', '--format=%B', local]);
    expect(message).toContain(`Harness-Idempotency-Key: ${handle.workflowId}/2`);

    const view = await handle.query<RunView>('state');
    expect(view.invocations.map((i) => [i.seq, i.tool, i.status])).toEqual([
      [1, 'git.status', 'succeeded'],
      [2, 'git.commit', 'succeeded'],
      [3, 'git.push', 'succeeded'],
      [4, 'git.verify_remote_branch', 'succeeded'],
    ]);
    const artifacts = await h.composition.store.listArtifacts(handle.workflowId);
    const push = artifacts.find((a) => a.type === 'git.remote_branch');
    expect(push).toMatchObject({
      provenance: 'observed',
      externalId: `origin/${CODING_BRANCH}@${local}`,
      data: { remote: 'origin', branch: CODING_BRANCH, sha: local },
    });
    const check = artifacts.find((a) => a.provenance === 'verified');
    // bound to the push it verifies: its external id and the push's artifact id (run and seq 3)
    expect(check?.verification).toEqual({
      subject: {
        externalId: `origin/${CODING_BRANCH}@${local}`,
        artifactId: `${handle.workflowId}/3/git.remote_branch`,
      },
      status: 'passed',
    });
    expect(push?.id).toBe(`${handle.workflowId}/3/git.remote_branch`);
    const events = await h.composition.store.listEvents(handle.workflowId);
    expect(events.find((e) => e.type === 'eval.completed')?.data).toMatchObject({
      passed: true,
      reasonCodes: ['completion.remote_branch_verified'],
    });
  });

  it('a final text that claims verification without the check fails completion', async () => {
    const { h, demo } = await codingFixture('forged');
    const handle = await h.start({
      profile: PUSH,
      modelRoute: FORGED_ROUTE,
      task: { message: 'Commit the README change and push it' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.output).toBe('Pushed and verified: the remote has the branch.');
    expect(result.status).toBe('failed');
    expect(result.terminalReason?.code).toBe('completion.not_satisfied');
    expect(result.terminalReason?.details).toMatchObject({
      reasonCodes: ['completion.no_verified_artifact'],
    });
    // the push itself happened: only the claim of verification was missing
    expect(remoteSha(demo, CODING_BRANCH)).toBe(gitOut(demo.repoDir, ['rev-parse', CODING_BRANCH]));
  });

  it('runs the pipeline on the pushed commit: passed and linked to the push', async () => {
    const { h, demo } = await codingFixture('pipeline-pass');
    const handle = await h.start({
      profile: PIPELINE,
      modelRoute: CODING_PIPELINE_ROUTE,
      task: { message: 'Commit, push and test the README change' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.terminalReason).toBeNull();
    expect(result.status).toBe('succeeded');
    const sha = remoteSha(demo, CODING_BRANCH);
    const artifacts = await h.composition.store.listArtifacts(handle.workflowId);
    const run = artifacts.find((a) => a.type === 'pipeline.run');
    expect(run).toMatchObject({
      provenance: 'verified',
      verification: {
        subject: {
          externalId: `origin/${CODING_BRANCH}@${sha}`,
          artifactId: `${handle.workflowId}/3/git.remote_branch`,
        },
        status: 'passed',
      },
      data: { exitCode: 0, timedOut: false, sha, pushSeq: 3 },
    });
    const view = await handle.query<RunView>('state');
    expect(view.invocations.find((i) => i.tool === 'pipeline.run')).toMatchObject({
      version: 'v2',
      effect: 'write',
      status: 'succeeded',
    });
    expect((run?.data as { outputTail: string }).outputTail).toContain('all checks passed');
  });

  it('a failing pipeline fails pipeline_verification', async () => {
    const { h, demo } = await codingFixture('pipeline-fail', '# Demo\n\nBROKEN\n');
    const handle = await h.start({
      profile: PIPELINE,
      modelRoute: CODING_PIPELINE_ROUTE,
      task: { message: 'Commit, push and test the README change' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('failed');
    expect(result.terminalReason?.code).toBe('completion.not_satisfied');
    expect(result.terminalReason?.details).toMatchObject({ reasonCodes: ['completion.verification_failed'] });
    const artifacts = await h.composition.store.listArtifacts(handle.workflowId);
    expect(artifacts.find((a) => a.type === 'pipeline.run')).toMatchObject({
      verification: { status: 'failed' },
      data: { exitCode: 1 },
    });
    // the broken change was pushed: the pipeline, not the push, is what failed
    expect(gitOut(demo.remoteDir, ['show', `${CODING_BRANCH}:README.md`])).toContain('BROKEN');
  });
});

describe('coding write tools are idempotent under one key (real git, no server)', () => {
  const ctx: ToolContext = { signal: new AbortController().signal, heartbeat: () => undefined };
  const call = (seq: number, tool: string, args: Record<string, unknown>): ToolCall => ({
    runId: 'run-idem',
    seq,
    tool,
    version: 'v1',
    args,
    idempotencyKey: `run-idem/${seq}`,
  });

  it('the same commit and the same push twice: one commit, one ref update on the remote', async () => {
    const demo = createDemoRepo(mkdtempSync(join(tmpdir(), 'coding-idem-')));
    gitOut(demo.remoteDir, ['config', 'core.logAllRefUpdates', 'always']);
    const tools = new Map(createCodingTools(demo).map((t) => [t.definition.name, t.executor]));
    const commit = tools.get('git.commit')!;
    const push = tools.get('git.push')!;

    const commitCall = call(2, 'git.commit', {
      branch: 'agent/idem',
      message: 'Change',
      paths: ['README.md'],
    });
    const first = await commit.execute(ctx, commitCall);
    writeFileSync(join(demo.repoDir, 'README.md'), 'another change that must not be committed\n');
    const second = await commit.execute(ctx, commitCall);
    expect(second).toEqual(first);
    expect(gitOut(demo.repoDir, ['rev-list', '--count', 'agent/idem'])).toBe('2'); // initial + one
    expect(await commit.reconcile!(ctx, commitCall)).toEqual({ outcome: 'succeeded', execution: first });
    expect(await commit.reconcile!(ctx, call(9, 'git.commit', commitCall.args))).toEqual({
      outcome: 'not_applied',
    });

    const pushCall = call(3, 'git.push', { branch: 'agent/idem' });
    expect(await push.reconcile!(ctx, pushCall)).toEqual({ outcome: 'not_applied' });
    const pushed = await push.execute(ctx, pushCall);
    const again = await push.execute(ctx, pushCall);
    expect(pushed.output).toMatchObject({ updated: true, sha: first.externalId });
    expect(again.output).toMatchObject({ updated: false, sha: first.externalId });
    expect(again.artifacts).toEqual(pushed.artifacts);
    const reflog = gitOut(demo.remoteDir, ['reflog', 'show', '--format=%H', 'refs/heads/agent/idem']);
    expect(reflog.split('\n')).toEqual([first.externalId]);
    expect(await push.reconcile!(ctx, pushCall)).toMatchObject({ outcome: 'succeeded' });
  });

  it('refuses paths outside the repository or inside .git before touching git', async () => {
    const demo = createDemoRepo(mkdtempSync(join(tmpdir(), 'coding-paths-')));
    const commit = createCodingTools(demo).find((t) => t.definition.name === 'git.commit')!.executor;
    for (const path of ['../outside.txt', '/etc/passwd', '.git/config', 'a/../../b', ':(glob)*']) {
      await expect(
        commit.execute(ctx, call(2, 'git.commit', { branch: 'agent/x', message: 'm', paths: [path] })),
      ).rejects.toMatchObject({ code: 'coding.invalid_arguments' });
    }
    expect(gitOut(demo.repoDir, ['branch', '--list', 'agent/x'])).toBe('');
  });
});
