import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCodingTools, resolveCodingConfig } from '../../apps/coding/coding-tools.js';
import { createDemoRepo, type DemoRepo } from '../../apps/coding/demo-repo.js';
import { markPipelineStarted, pipelineRecordsDir } from '../../apps/coding/pipeline-records.js';
import type { Artifact } from '../../src/contract/artifact.js';
import type { ToolCall, ToolContext, ToolExecution, ToolExecutor } from '../../src/contract/tool.js';
import type { InvocationRecord } from '../../src/workflows/completion/completion.js';
import { observedRemoteBranch } from '../../src/workflows/completion/observed-remote-branch.js';
import { pipelineVerification } from '../../src/workflows/completion/pipeline-verification.js';

const BRANCH = 'agent/change';
const ctx: ToolContext = { signal: new AbortController().signal, heartbeat: () => undefined };

const VERSIONS: Record<string, string> = { 'pipeline.run': 'v2' };
const EFFECTS: Record<string, 'read' | 'write'> = {
  'git.status': 'read',
  'git.commit': 'write',
  'git.push': 'write',
  'git.verify_remote_branch': 'read',
  'pipeline.run': 'write',
};

function call(runId: string, seq: number, tool: string, args: Record<string, unknown>): ToolCall {
  return { runId, seq, tool, version: VERSIONS[tool] ?? 'v1', args, idempotencyKey: `${runId}/${seq}` };
}

/**
 * The demo repository whose test.sh also appends one line per run to `runs.log` outside the clone,
 * so a test can count how often repository code really ran.
 */
function countingDemo(): { demo: DemoRepo; runsLog: string } {
  const demo = createDemoRepo(mkdtempSync(join(tmpdir(), 'coding-binding-')));
  const runsLog = join(mkdtempSync(join(tmpdir(), 'coding-runs-')), 'runs.log');
  writeFileSync(runsLog, '');
  const script = readFileSync(join(demo.repoDir, 'test.sh'), 'utf8');
  writeFileSync(
    join(demo.repoDir, 'test.sh'),
    script.replace('set -e\n', `set -e\necho run >> '${runsLog}'\n`),
  );
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'T',
    GIT_AUTHOR_EMAIL: 't@example.invalid',
    GIT_COMMITTER_NAME: 'T',
    GIT_COMMITTER_EMAIL: 't@example.invalid',
  };
  execFileSync('git', ['commit', '--quiet', '-m', 'Count runs', '--', 'test.sh'], { cwd: demo.repoDir, env });
  execFileSync('git', ['push', '--quiet', demo.remoteDir, 'main:main'], { cwd: demo.repoDir, env });
  return { demo, runsLog };
}

function runsOf(runsLog: string): number {
  return readFileSync(runsLog, 'utf8').split('\n').filter(Boolean).length;
}

/** One run of the coding tools: calls by seq, and the invocation records completion would see. */
class ToolRun {
  readonly invocations: InvocationRecord[] = [];
  readonly artifacts: Artifact[] = [];
  constructor(
    readonly runId: string,
    private readonly tools: Map<string, ToolExecutor>,
  ) {}

  async exec(seq: number, tool: string, args: Record<string, unknown>): Promise<ToolExecution> {
    const execution = await this.tools.get(tool)!.execute(ctx, call(this.runId, seq, tool, args));
    const artifacts = execution.artifacts ?? [];
    this.artifacts.push(...artifacts);
    this.invocations.push({
      seq,
      tool,
      version: VERSIONS[tool] ?? 'v1',
      effect: EFFECTS[tool]!,
      status: 'succeeded',
      ...(execution.externalId ? { externalId: execution.externalId } : {}),
      artifactIds: artifacts.map((a) => a.id),
    });
    return execution;
  }

  evidence(): { finalOutput: string; artifacts: Artifact[]; invocations: InvocationRecord[] } {
    return { finalOutput: 'done', artifacts: this.artifacts, invocations: this.invocations };
  }
}

function toolsOf(demo: DemoRepo): Map<string, ToolExecutor> {
  return new Map(createCodingTools(demo).map((t) => [t.definition.name, t.executor]));
}

const PIPELINE_CONTRACT = { requireLinkedChange: true, changeType: 'git.remote_branch' };

describe('a check vouches only for the write it names (real git, no server)', () => {
  it("another run's push and pipeline record of the same branch and commit do not stand in for this run's", async () => {
    const { demo, runsLog } = countingDemo();
    const tools = toolsOf(demo);
    const a = new ToolRun('run-a', tools);
    const commit = await a.exec(2, 'git.commit', { branch: BRANCH, message: 'Change', paths: ['README.md'] });
    await a.exec(3, 'git.push', { branch: BRANCH });
    const pipelineA = await a.exec(4, 'pipeline.run', { branch: BRANCH });
    expect(pipelineA.artifacts?.[0]?.verification).toEqual({
      subject: {
        externalId: `origin/${BRANCH}@${commit.externalId}`,
        artifactId: 'run-a/3/git.remote_branch',
      },
      status: 'passed',
    });
    expect(runsOf(runsLog)).toBe(1);

    // Run B shares repository and remote; the remote branch is at the very commit A pushed and tested.
    const b = new ToolRun('run-b', tools);
    const pushB = call('run-b', 3, 'git.push', { branch: BRANCH });
    // B's push never ran: A's push of the same commit is not B's write (before: `succeeded`).
    expect(await tools.get('git.push')!.reconcile!(ctx, pushB)).toEqual({ outcome: 'not_applied' });
    // B has pushed nothing: its pipeline refuses and runs no code, A's record notwithstanding.
    await expect(b.exec(4, 'pipeline.run', { branch: BRANCH })).rejects.toMatchObject({
      code: 'coding.not_pushed_by_run',
    });
    expect(runsOf(runsLog)).toBe(1);
    const pipelineB = call('run-b', 4, 'pipeline.run', { branch: BRANCH });
    expect(await tools.get('pipeline.run')!.reconcile!(ctx, pipelineB)).toEqual({ outcome: 'not_applied' });

    // B pushes (nothing to update: only its marker goes up), then its own pipeline run tests it.
    const pushed = await b.exec(5, 'git.push', { branch: BRANCH });
    expect(pushed.output).toMatchObject({ updated: false, sha: commit.externalId });
    expect(
      await tools.get('git.push')!.reconcile!(ctx, call('run-b', 5, 'git.push', { branch: BRANCH })),
    ).toMatchObject({
      outcome: 'succeeded',
    });
    const tested = await b.exec(6, 'pipeline.run', { branch: BRANCH });
    expect(runsOf(runsLog)).toBe(2);
    expect(tested.artifacts?.[0]?.verification?.subject).toEqual({
      externalId: `origin/${BRANCH}@${commit.externalId}`,
      artifactId: 'run-b/5/git.remote_branch',
    });
    expect(pipelineVerification.evaluate({ ...b.evidence(), params: PIPELINE_CONTRACT })).toMatchObject({
      passed: true,
      evidenceArtifactIds: ['run-b/5/git.remote_branch', 'run-b/6/pipeline.run'],
    });
    // A's pipeline record, in B's evidence, would not vouch for B's push: it names A's push.
    const foreign = { ...a.artifacts.find((x) => x.type === 'pipeline.run')!, id: 'run-b/7/pipeline.run' };
    const withForeign = {
      finalOutput: 'done',
      artifacts: [...b.artifacts.filter((x) => x.type !== 'pipeline.run'), foreign],
      invocations: [
        ...b.invocations.filter((i) => i.tool !== 'pipeline.run'),
        {
          ...b.invocations.find((i) => i.tool === 'git.push')!,
          seq: 7,
          tool: 'pipeline.run',
          artifactIds: [foreign.id],
        },
      ],
    };
    expect(pipelineVerification.evaluate({ ...withForeign, params: PIPELINE_CONTRACT }).reasonCodes).toEqual([
      'completion.unlinked_verification',
    ]);
  });

  it('a later push of the same commit needs its own check: an earlier push of this run does not vouch for it', async () => {
    const { demo } = countingDemo();
    const run = new ToolRun('run-r', toolsOf(demo));
    const commit = await run.exec(2, 'git.commit', {
      branch: BRANCH,
      message: 'Change',
      paths: ['README.md'],
    });
    await run.exec(3, 'git.push', { branch: BRANCH });
    const check = await run.exec(4, 'git.verify_remote_branch', { branch: BRANCH });
    expect(check.artifacts?.[0]?.verification?.subject).toEqual({
      externalId: `origin/${BRANCH}@${commit.externalId}`,
      artifactId: 'run-r/3/git.remote_branch',
    });
    const contract = { branch: BRANCH, remote: 'origin' };
    expect(observedRemoteBranch.evaluate({ ...run.evidence(), params: contract }).passed).toBe(true);

    // The same commit pushed again (seq 5): the check of push 3 does not cover it, whatever its seq.
    await run.exec(5, 'git.push', { branch: BRANCH });
    const latePush3Check = {
      ...check.artifacts![0]!,
      id: 'run-r/6/git.remote_branch.check',
    };
    const stale = {
      finalOutput: 'done',
      artifacts: [...run.artifacts, latePush3Check],
      invocations: [
        ...run.invocations,
        { ...run.invocations.find((i) => i.seq === 4)!, seq: 6, artifactIds: [latePush3Check.id] },
      ],
    };
    expect(observedRemoteBranch.evaluate({ ...stale, params: contract }).reasonCodes).toEqual([
      'completion.unlinked_verification',
    ]);
    // A real check after push 5 names push 5 (the latest push of this run that holds the sha).
    const fresh = await run.exec(7, 'git.verify_remote_branch', { branch: BRANCH });
    expect(fresh.artifacts?.[0]?.verification?.subject.artifactId).toBe('run-r/5/git.remote_branch');
    expect(observedRemoteBranch.evaluate({ ...run.evidence(), params: contract }).passed).toBe(true);
    const pipeline = await run.exec(8, 'pipeline.run', { branch: BRANCH });
    expect(pipeline.output).toMatchObject({ status: 'passed', pushSeq: 5 });
  });
});

describe('pipeline.run@v2 is a write keyed by its idempotency key (real git, no server)', () => {
  it('runs once per key, and its reconciler knows only its own record', async () => {
    const { demo, runsLog } = countingDemo();
    const tools = toolsOf(demo);
    const run = new ToolRun('run-p', tools);
    await run.exec(2, 'git.commit', { branch: BRANCH, message: 'Change', paths: ['README.md'] });
    await run.exec(3, 'git.push', { branch: BRANCH });
    const pipeline = tools.get('pipeline.run')!;
    const first = call('run-p', 4, 'pipeline.run', { branch: BRANCH });
    const once = await pipeline.execute(ctx, first);
    const again = await pipeline.execute(ctx, first);
    expect(again).toEqual(once);
    expect(runsOf(runsLog)).toBe(1);
    expect(await pipeline.reconcile!(ctx, first)).toEqual({ outcome: 'succeeded', execution: once });

    // Started under a key and never finished: the code may have run, so nobody guesses.
    const config = resolveCodingConfig(demo);
    const dir = await pipelineRecordsDir(config, { env: config.gitEnv });
    const lost = call('run-p', 5, 'pipeline.run', { branch: BRANCH });
    await markPipelineStarted(dir, lost.idempotencyKey, { branch: BRANCH });
    expect(await pipeline.reconcile!(ctx, lost)).toEqual({ outcome: 'unknown' });
    const refused = pipeline.execute(ctx, lost);
    await expect(refused).rejects.toThrow(/started before and did not finish/);
    await expect(refused).rejects.not.toHaveProperty('code');
    expect(runsOf(runsLog)).toBe(1);
  });
});
