import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { projectRoot } from '../../src/devserver/config.js';
import { TEST_KEYS, writeKeyFile } from '../support/principals.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { cliEnv, collect, harnessBin, runCli, type CliResult } from './cli-support.js';

const REFUND_TASK = JSON.stringify({
  message: 'My order ORD-1001 has not shipped for days, please refund',
  customerId: 'C1001',
});

/** True when util-linux `script` is there to give the CLI a terminal. */
function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * `harness approve|reject|confirm` never sign what the operator has not seen: they show the pending
 * action (tool, version, argument digest, the arguments) and sign only for `--action <the pending id>`
 * or a `y` typed at a terminal. Piped (no terminal) and without `--action`, nothing is signed.
 */
describe('harness decision verbs show the pending action and need --action or a confirmation', () => {
  let h: HarnessFixture;
  let env: NodeJS.ProcessEnv;
  let n = 0;
  let customerKey = '';
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);
  const state = (workflowId: string): Promise<RunView> =>
    h.t.client.workflow.getHandle(workflowId).query<RunView>('state');
  const startWaiting = async (name: string): Promise<RunView> => {
    const workflowId = `cli-decide-${name}-${Date.now()}-${n++}`;
    // Signed by the customer: an anonymous refund run is refused before it asks anything.
    const r = await cli(
      'start',
      'refund.graph',
      '--input',
      REFUND_TASK,
      '--id',
      workflowId,
      '--key',
      customerKey,
    );
    expect(r.code, r.stderr).toBe(0);
    return waitForState(
      h.t.client.workflow.getHandle(workflowId),
      (v) => v.status === 'awaiting_confirmation',
    );
  };
  /** The run took no decision: still waiting on the same action, nothing verified or refused. */
  const expectUndecided = async (before: RunView): Promise<void> => {
    const after = await state(before.runId);
    expect(after.status).toBe('awaiting_confirmation');
    expect(after.pendingAction?.actionId).toBe(before.pendingAction!.actionId);
    expect(after.decisions ?? []).toEqual([]);
    expect(after.signalRejections).toEqual([]);
  };
  /** The review shows the tool, the digest and every argument. */
  const expectReview = (text: string, v: RunView): void => {
    const p = v.pendingAction!;
    expect(text).toContain(`pending action ${p.actionId} (confirmation)`);
    expect(text).toContain(`tool:        ${p.tool}@${p.version}`);
    expect(text).toContain(`args digest: ${p.argsDigest}`);
    expect(v.pendingArguments).toBeDefined();
    for (const [k, value] of Object.entries(v.pendingArguments!))
      expect(text).toContain(`"${k}": ${JSON.stringify(value)}`);
  };

  beforeAll(async () => {
    h = await createHarnessFixture('cli-decide');
    env = {
      HARNESS_TASK_QUEUE: h.taskQueue,
      HARNESS_STORE_URL: `sqlite:${join(h.dir, 'evidence.db')}`,
      HARNESS_REFUND_DB: join(h.dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      HARNESS_KEY: writeKeyFile(TEST_KEYS.ops, h.dir),
    };
    customerKey = writeKeyFile(TEST_KEYS.customer, h.dir);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('piped, without --action: refused with exit 2 naming the action, the arguments shown, nothing decided', async () => {
    const v = await startWaiting('no-action');
    const actionId = v.pendingAction!.actionId;
    for (const verb of [['approve'], ['reject', '--reason', 'no'], ['approve', '--print']]) {
      const r = await cli(verb[0]!, v.runId, ...verb.slice(1));
      expect(r.code, `${verb.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`pass --action ${actionId}`);
      expect(r.stderr).toContain('nothing sent');
      expect(r.stdout).toBe('');
      expectReview(r.stderr, v);
    }
    const asJson = await cli('approve', v.runId, '--json');
    expect(asJson.code).toBe(2);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ error: { code: 'cli.action_required', exitCode: 2 } });
    await expectUndecided(v);
  });

  it('with another --action: refused with exit 5, nothing decided', async () => {
    const v = await startWaiting('wrong-action');
    const r = await cli('approve', v.runId, '--action', `${v.pendingAction!.actionId}x`);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`waits on action ${v.pendingAction!.actionId}`);
    await expectUndecided(v);
  });

  it('with the pending --action: shown, signed, accepted; --json carries what was signed', async () => {
    const v = await startWaiting('right-action');
    const actionId = v.pendingAction!.actionId;
    const readable = await cli('approve', v.runId, '--action', actionId, '--print');
    expect(readable.code, readable.stderr).toBe(0);
    expectReview(readable.stderr, v);
    const r = await cli('approve', v.runId, '--action', actionId, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      accepted: true,
      actionId,
      pending: {
        actionId,
        tool: v.pendingAction!.tool,
        argsDigest: v.pendingAction!.argsDigest,
        arguments: v.pendingArguments,
      },
    });
    const after = await state(v.runId);
    expect(after.decisions?.map((d) => [d.actionId, d.principal])).toEqual([
      [actionId, TEST_KEYS.ops.principal],
    ]);
  });

  it.skipIf(!hasScript())('at a terminal: the arguments are shown and only a typed y signs', async () => {
    /** `harness approve <id>` on a pseudo-terminal (util-linux `script`), answering `answer` to the prompt. */
    const atTerminal = (workflowId: string, answer: string): Promise<CliResult> => {
      const child = spawn(
        'script',
        ['-qefc', `${process.execPath} ${harnessBin} approve ${workflowId}`, '/dev/null'],
        { cwd: projectRoot, env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let seen = '';
      child.stdout.on('data', (b: Buffer) => {
        seen += b.toString();
        if (seen.includes('[y/N]') && !child.stdin.writableEnded) child.stdin.end(`${answer}\n`);
      });
      return collect(child, 90_000);
    };
    const v = await startWaiting('terminal');
    const declined = await atTerminal(v.runId, 'n');
    expect(declined.code, declined.stdout).toBe(2);
    expect(declined.stdout).toContain('not confirmed; nothing sent');
    expectReview(declined.stdout, v);
    await expectUndecided(v);

    const confirmed = await atTerminal(v.runId, 'y');
    expect(confirmed.code, confirmed.stdout).toBe(0);
    expect(confirmed.stdout).toContain(`approve accepted by ${v.runId}`);
    expect((await state(v.runId)).decisions?.map((d) => d.actionId)).toEqual([v.pendingAction!.actionId]);
  });
});
