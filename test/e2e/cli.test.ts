import { loadDecisionKey, publicKeyOf } from '../../src/client/decisions/decision-key.js';
import { loadPrincipalRegistry } from '../../src/activities/authz/principal-registry.js';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { TEST_KEYS, writeKeyFile } from '../support/principals.js';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { collect, runCli, spawnCli, until, type CliResult } from './cli-support.js';
import { refundGraphProfile } from '../../apps/refund/workflow/refund-graph.js';

const REFUND_TASK = JSON.stringify({
  message: 'My order ORD-1001 has not shipped for days, please refund',
  customerId: 'C1001',
});
const REFUSED_TASK = JSON.stringify({ message: 'refund ORD-2001 please', customerId: 'C1001' });

function json<T>(r: CliResult): T {
  return JSON.parse(r.stdout) as T;
}

/**
 * Every operator verb as a real `harness` process against the shared server, with a real worker (the
 * harness fixture) on a private task queue and temp stores the CLI reaches through HARNESS_* settings.
 */
describe('harness CLI against a real worker', () => {
  let h: HarnessFixture;
  let env: NodeJS.ProcessEnv;
  /** The customer's key file: refund runs are signed for C1001 (an unsigned refund run is refused). */
  let customerKey: string;
  const ids: string[] = [];
  const id = (name: string): string => {
    const value = `cli-${name}-${Date.now()}-${ids.length}`;
    ids.push(value);
    return value;
  };
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);
  const state = (workflowId: string): Promise<RunView> =>
    h.t.client.workflow.getHandle(workflowId).query<RunView>('state');
  const startWaiting = async (name: string): Promise<string> => {
    const workflowId = id(name);
    const r = await cli(
      'start',
      'refund.graph',
      '--input',
      REFUND_TASK,
      '--id',
      workflowId,
      '--key',
      customerKey,
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    await waitForState(
      h.t.client.workflow.getHandle(workflowId),
      (v) => v.status === 'awaiting_confirmation',
    );
    return workflowId;
  };

  beforeAll(async () => {
    h = await createHarnessFixture('cli');
    env = {
      HARNESS_TASK_QUEUE: h.taskQueue,
      HARNESS_STORE_URL: `sqlite:${join(h.dir, 'evidence.db')}`,
      HARNESS_REFUND_DB: join(h.dir, 'refund.db'),
      HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      // The operator's signing key (a registered refund approver and operator).
      HARNESS_KEY: writeKeyFile(TEST_KEYS.ops, h.dir),
    };
    customerKey = writeKeyFile(TEST_KEYS.customer, h.dir);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('start: readable by default, { workflowId, runId, status } with --json', async () => {
    const readableId = id('start');
    const readable = await cli('start', 'refund.graph', '--input', REFUSED_TASK, '--id', readableId);
    expect(readable.code, readable.stderr).toBe(0);
    expect(readable.stdout).toContain(`started ${readableId}`);
    expect(readable.stdout).toContain('policy refund.rules@v1');

    const jsonId = id('start-json');
    const r = await cli('start', 'refund.graph@v1', '--input', REFUSED_TASK, '--id', jsonId, '--json');
    expect(r.code, r.stderr).toBe(0);
    const started = json<{ workflowId: string; runId: string; status: string }>(r);
    expect(started).toMatchObject({ workflowId: jsonId, status: 'started' });
    const result = (await h.t.client.workflow.getHandle(jsonId).result()) as {
      status: string;
      versions: { policy: string; modelRoute: string };
    };
    expect(result.status).toBe('succeeded');
    expect(result.versions).toMatchObject({ policy: 'refund.rules@v1', modelRoute: 'scripted/refund' });
    const desc = await h.t.client.workflow.getHandle(jsonId).describe();
    expect(desc.runId).toBe(started.runId);
  });

  it('start needs no worker composition: no model key, no evidence or business store', async () => {
    // A real provider without its key, an evidence store that cannot open, a business store that
    // cannot be created: a worker would refuse all three; the starter never touches them.
    const noWorkerSide = {
      ...env,
      HARNESS_MODEL_PROVIDER: 'openai',
      OPENAI_API_KEY: '',
      HARNESS_STORE_URL: 'nosuchdb://nowhere',
      HARNESS_REFUND_DB: '/proc/no/such/dir/refund.db',
    };
    const startedId = id('start-bare');
    const r = await runCli(
      ['start', 'refund.graph', '--input', REFUSED_TASK, '--id', startedId],
      noWorkerSide,
    );
    expect(r.code, r.stderr).toBe(0);
    // The run pinned the route of the worker that served its start (the test worker's scripted route).
    const result = (await h.t.client.workflow.getHandle(startedId).result()) as {
      status: string;
      versions: { modelRoute: string; toolRegistryDigest: string };
    };
    expect(result.status).toBe('succeeded');
    expect(result.versions.modelRoute).toBe('scripted/refund');
    expect(result.versions.toolRegistryDigest).toBe(
      h.composition.registry.snapshot(refundGraphProfile.tools).digest,
    );
  });

  it('start --wait waits for the end and reports the run status', async () => {
    const taskFile = join(h.dir, 'task.json');
    writeFileSync(taskFile, REFUSED_TASK);
    const r = await cli(
      'start',
      'refund.graph',
      '--input',
      `@${taskFile}`,
      '--id',
      id('wait'),
      '--wait',
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(json<{ status: string; output: { outcome: string } }>(r)).toMatchObject({
      status: 'succeeded',
      output: { outcome: 'refused' },
    });
    expect(r.stderr).toContain('waiting for it to end');
  });

  it('start with invalid input exits 2 naming the field, and starts nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['--input', '{"message":'], /--input: not valid JSON/],
      [['--input', '[1,2]'], /--input: expected a JSON object/],
      [['--input', REFUND_TASK, '--policy', 'nope@v1'], /policy: nope@v1 is not registered/],
      [
        ['--input', REFUND_TASK, '--policy', 'coding.tools@v1'],
        /refund\.graph@v1 may not run under coding\.tools@v1 \(allowed: refund\.rules@v1, read_only@v1\)/,
      ],
      [['--input', REFUND_TASK, '--budget', '{"maxSteps":-1}'], /budget\.maxSteps/],
      [['--input', REFUND_TASK, '--model-route', ''], /modelRoute/],
      [['--input', REFUND_TASK, '--approval-timeout', 'soon'], /--approval-timeout/],
    ];
    for (const [args, message] of cases) {
      const workflowId = id('invalid');
      const r = await cli('start', 'refund.graph', ...args, '--id', workflowId);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      await expect(h.t.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    }
    const unknown = await cli('start', 'refund.nothing', '--input', '{}', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { code: 'cli.usage', exitCode: 2 } });
    expect(unknown.stderr).toContain('profile: refund.nothing');
    const missing = await cli('start', 'refund.graph');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--input <json|@file>' not specified");
  });

  it('list --status awaiting_confirmation, show, approve (forged action rejected, then accepted), reconcile rejected, events --follow ends with the run', async () => {
    const workflowId = await startWaiting('approve');

    const listed = await until(
      () => cli('list', '--status', 'awaiting_confirmation', '--json', '--limit', '500'),
      (r) => r.code === 0 && json<{ workflowId: string }[]>(r).some((row) => row.workflowId === workflowId),
    );
    const row = json<
      { workflowId: string; status: string; waitingReason: string; profile: string; startTime: string }[]
    >(listed).find((x) => x.workflowId === workflowId);
    expect(row).toMatchObject({
      status: 'awaiting_confirmation',
      waitingReason: 'confirmation_required',
      profile: 'refund.graph@v1',
    });
    const readableList = await cli('list', '--status', 'awaiting_confirmation', '--limit', '500');
    expect(readableList.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+WAITING\s+PROFILE\s+STARTED$/);
    expect(readableList.stdout).toMatch(
      new RegExp(`${workflowId}\\s+awaiting_confirmation\\s+confirmation_required\\s+refund\\.graph@v1`),
    );
    expect((await cli('list', '--status', 'sleeping')).code).toBe(2);

    const show = await cli('show', workflowId);
    expect(show.code, show.stderr).toBe(0);
    const view = await state(workflowId);
    const actionId = view.pendingAction!.actionId;
    expect(show.stdout).toContain('status: awaiting_confirmation  waiting: confirmation_required');
    expect(show.stdout).toContain(`pending action: ${actionId} (confirmation`);
    expect(show.stdout).toContain(`request (refund_confirmation): ${view.humanRequest!.requestSummary}`);
    expect(show.stdout).toMatch(/1\s+order\.read@v1\s+read\s+succeeded/);
    expect(show.stdout).toMatch(/observed/);
    expect(show.stdout).toContain(
      'versions: profile refund.graph@v1, policy refund.rules@v1, model route scripted/refund',
    );
    expect(show.stdout).toMatch(/budget: steps \d+\/50/);
    expect(show.stdout).not.toContain('page: ');
    const linked = await runCli(['show', workflowId], {
      ...env,
      HARNESS_SERVICE_URL: 'http://svc.test:8080/',
    });
    expect(linked.stdout).toContain(`page: http://svc.test:8080/runs/${encodeURIComponent(workflowId)}`);
    const showJson = json<{ state: RunView; execution: { status: string } }>(
      await cli('show', workflowId, '--json'),
    );
    expect(showJson.state.pendingAction?.actionId).toBe(actionId);
    expect(showJson.execution.status).toBe('RUNNING');

    const follow = collect(
      spawnCli(['events', workflowId, '--follow', '--json', '--interval', '200'], env),
      120_000,
    );

    // Another action than the pending one: the CLI sends nothing (a token binds one action).
    const forged = await cli('approve', workflowId, '--action', 'act-forged');
    expect(forged.code, forged.stderr).toBe(5);
    expect(forged.stderr).toContain(`waits on action ${actionId}, not act-forged; nothing sent`);
    // A key the registry does not know: the run refuses it, and the answer comes back at once.
    const unknown = await cli(
      'approve',
      workflowId,
      '--action',
      actionId,
      '--key',
      writeKeyFile(TEST_KEYS.mallory, h.dir),
    );
    expect(unknown.code, unknown.stderr).toBe(5);
    expect(unknown.stdout).toContain('approve refused by');
    expect(unknown.stdout).toContain('decision.unknown_key');
    // No key at all: a usage error, nothing sent.
    const unsigned = await cli('approve', workflowId, '--key', join(h.dir, 'missing.json'));
    expect(unsigned.code).toBe(2);
    expect((await state(workflowId)).status).toBe('awaiting_confirmation');

    const reconcile = await cli(
      'reconcile',
      workflowId,
      '--invocation',
      '3',
      '--outcome',
      'succeeded',
      '--evidence',
      '{"ticket":"T-1"}',
      '--json',
    );
    expect(reconcile.code, reconcile.stderr).toBe(5);
    expect(reconcile.stderr).toContain('not waiting for reconciliation');

    const approve = await cli(
      'approve',
      workflowId,
      '--action',
      actionId,
      '--reason',
      'policy R001',
      '--json',
    );
    expect(approve.code, approve.stderr).toBe(0);
    expect(json<{ accepted: boolean; actionId: string; principal: string }>(approve)).toMatchObject({
      accepted: true,
      actionId,
      principal: TEST_KEYS.ops.principal,
    });

    const followed = await follow;
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout, followed.stderr).toMatch(/^\{/);
    const events = followed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string; data: Record<string, unknown> });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-2)?.type).toBe('run.completed');
    expect(events.at(-1)?.type).toBe('run.sealed');
    const rejected = events
      .filter((e) => e.type === 'human.signal_rejected')
      .map((e) => [e.data.signal, e.data.code]);
    // Refused by the update's validator before it was admitted: answered, never recorded (docs/signals.md).
    expect(rejected).toEqual([]);
    expect(
      events.some(
        (e) =>
          e.type === 'human.decided' &&
          e.data.actor === 'operator@example.com' &&
          e.data.decision === 'approved',
      ),
    ).toBe(true);
    expect(followed.stderr).toContain('is closed (COMPLETED)');

    // The terminal event, then the seal.
    const readableEvents = await cli('events', workflowId, '--after', String(events.length - 2));
    expect(readableEvents.stdout.trim().split('\n')).toHaveLength(2);
    expect(readableEvents.stdout).toMatch(new RegExp(`^\\s*${events.length - 1}\\s+\\S+\\s+run\\.completed`));

    const closedShow = await cli('show', workflowId);
    expect(closedShow.stdout).toContain('status: succeeded');
    expect(closedShow.stdout).toMatch(/refund\.create@v1\s+write\s+succeeded/);
    expect(closedShow.stdout).toMatch(/verified/);
    expect(closedShow.stdout).toContain('decisions (verified):');
    expect(closedShow.stdout).toMatch(
      new RegExp(`${actionId}\\s+approve\\s+${TEST_KEYS.ops.principal}\\s+${TEST_KEYS.ops.keyId}`),
    );
    const late = await cli('approve', workflowId);
    expect(late.code).toBe(5);
    expect(late.stderr).toContain('is closed');
  });

  it('keys create: a private key file (0600, never overwritten) and the registry entry; a second key rotates', async () => {
    const keyPath = join(h.dir, 'alice.json');
    const registry = join(h.dir, 'principals.json');
    const created = await cli(
      'keys',
      'create',
      '--principal',
      'alice@example.com',
      '--key-id',
      'alice-1',
      '--role',
      'approver',
      'refund_approver',
      '--out',
      keyPath,
      '--registry',
      registry,
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    const key = loadDecisionKey(keyPath);
    expect(key).toMatchObject({ principal: 'alice@example.com', keyId: 'alice-1' });
    const loaded = loadPrincipalRegistry(registry);
    expect(loaded.registry.principals).toEqual([
      expect.objectContaining({
        id: 'alice@example.com',
        kind: 'approver',
        roles: ['approver', 'refund_approver'],
      }),
    ]);
    expect(loaded.registry.principals[0]!.keys[0]!.publicKey).toBe(publicKeyOf(key.privateKey));
    const again = await cli('keys', 'create', '--principal', 'alice@example.com', '--out', keyPath);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('never overwritten');
    const rotated = await cli(
      'keys',
      'create',
      '--principal',
      'alice@example.com',
      '--key-id',
      'alice-2',
      '--out',
      join(h.dir, 'alice-2.json'),
      '--registry',
      registry,
    );
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(loadPrincipalRegistry(registry).registry.principals[0]!.keys.map((k) => k.id)).toEqual([
      'alice-1',
      'alice-2',
    ]);
    const printed = await cli(
      'keys',
      'create',
      '--principal',
      'bob@example.com',
      '--out',
      join(h.dir, 'bob.json'),
    );
    expect(printed.stdout).toContain('add this entry to the principal registry');
  });

  it('reject names the pending action and the run declines', async () => {
    const workflowId = await startWaiting('reject');
    const actionId = (await state(workflowId)).pendingAction!.actionId;
    expect((await cli('reject', workflowId, '--action', actionId)).code).toBe(2);
    const r = await cli('reject', workflowId, '--action', actionId, '--reason', 'changed my mind');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`reject accepted by ${workflowId} from ${TEST_KEYS.ops.principal}`);
    const result = (await h.t.client.workflow.getHandle(workflowId).result()) as {
      status: string;
      output: { outcome: string };
    };
    expect(result).toMatchObject({ status: 'succeeded', output: { outcome: 'declined_by_user' } });
  });

  it('input answers a run waiting for a slot (a wrong slot is refused)', async () => {
    const workflowId = id('input');
    const r = await cli(
      'start',
      'refund.graph',
      '--input',
      JSON.stringify({ message: 'I want a refund', customerId: 'C1001' }),
      '--id',
      workflowId,
      '--key',
      customerKey,
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    await waitForState(h.t.client.workflow.getHandle(workflowId), (v) => v.status === 'awaiting_input');
    const wrong = await cli('input', workflowId, '--slot', 'customerId', '--value', 'C1001');
    expect(wrong.code).toBe(5);
    expect(wrong.stdout).toContain('signal.action_mismatch');
    const ok = await cli('input', workflowId, '--value', 'ORD-1001');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('provideInput accepted');
    await waitForState(
      h.t.client.workflow.getHandle(workflowId),
      (v) => v.status === 'awaiting_confirmation',
    );
  });

  it('cancel by signal and by Temporal cancellation; a closed run is refused', async () => {
    const bySignal = await startWaiting('cancel');
    const r = await cli('cancel', bySignal, '--reason', 'operator stop', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(json<{ status: string; terminalReason: { message: string } }>(r)).toMatchObject({
      status: 'cancelled',
      terminalReason: { message: `cancelled by ${TEST_KEYS.ops.principal}: operator stop` },
    });

    const byTemporal = await startWaiting('cancel-temporal');
    const t = await cli('cancel', byTemporal, '--temporal');
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toContain('run status cancelled');
    expect((await state(byTemporal)).terminalReason?.message).toContain('Temporal cancellation');

    const again = await cli('cancel', bySignal);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('already closed');
  });

  it('replay a finished run by id and from an exported history file; a tampered history fails with exit 1', async () => {
    const workflowId = id('replay');
    expect(
      (await cli('start', 'refund.graph', '--input', REFUSED_TASK, '--id', workflowId, '--wait')).code,
    ).toBe(0);
    const byId = await cli('replay', workflowId);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toMatch(/^replayed OK/);

    const file = join(h.dir, `${workflowId}.json`);
    const exported = await cli('history', workflowId, '--out', file);
    expect(exported.code, exported.stderr).toBe(0);
    const fromFile = await cli('replay', file, '--json');
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(json<{ ok: boolean; events: number }>(fromFile)).toMatchObject({ ok: true });

    const history = JSON.parse(readFileSync(file, 'utf8')) as {
      events: { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }[];
    };
    const scheduled = history.events.find((e) => e.activityTaskScheduledEventAttributes);
    scheduled!.activityTaskScheduledEventAttributes!.activityType.name = 'somethingElse';
    const tampered = join(h.dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(history));
    const bad = await cli('replay', tampered);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/DeterminismViolationError|[Nn]ondetermin/);

    expect((await cli('replay', join(h.dir, 'missing.json'))).code).toBe(3);
  });

  it("show: a run Temporal no longer has (past retention) is shown from the evidence store's run record", async () => {
    const runId = 'cli-retention-expired';
    const versions = {
      profile: 'refund.graph@v1',
      policy: 'refund.rules@v1',
      toolRegistryDigest: 'sha256:aa',
      modelRoute: 'scripted/refund',
      configDigest: 'sha256:bb',
    };
    const ev = (seq: number, type: string, data: Record<string, unknown>) => ({
      runId,
      seq,
      eventId: `${runId}-${seq}`,
      type,
      occurredAt: `2026-01-01T00:00:0${seq}.000Z`,
      data,
      envelope: { runId, sequence: seq, type, data, versions },
    });
    await h.composition.store.appendEvents([
      ev(1, 'run.created', { versions }),
      ev(2, 'state.transitioned', { toStatus: 'running', patch: {} }),
      ev(3, 'run.completed', { status: 'succeeded', output: { outcome: 'refunded' }, budget: { steps: 12 } }),
    ]);
    const shown = await cli('show', runId);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('not in Temporal any more');
    expect(shown.stdout).toContain('refund.graph@v1');
    expect(shown.stdout).toContain('succeeded');
    const json = await cli('show', runId, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      workflowId: runId,
      execution: null,
      record: { status: 'succeeded', versions, output: { outcome: 'refunded' }, budget: { steps: 12 } },
    });
  });

  it('not found exits 3; no server exits 4 and says how to start one', async () => {
    for (const verb of ['show', 'events', 'approve', 'cancel', 'replay']) {
      const r = await cli(verb, 'cli-no-such-run');
      expect(r.code, `${verb}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain('no workflow with id cli-no-such-run');
    }
    expect((await cli('start', 'refund.graph', '--input', `@${join(h.dir, 'no-such-task.json')}`)).code).toBe(
      3,
    );
    const down = await runCli(['list'], { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(down.code).toBe(4);
    expect(down.stderr).toContain('harness dev');
  });
});
