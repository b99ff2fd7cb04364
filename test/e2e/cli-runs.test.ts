import { readFileSync, writeFileSync } from 'node:fs';
import { TEST_KEYS, writeKeyFile } from '../support/principals.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { waitForState } from '../support/harness.js';
import { collect, runCli, spawnCli, until } from './cli-support.js';
import {
  REFUSED_TASK,
  json,
  h,
  env,
  customerKey,
  id,
  cli,
  state,
  startWaiting,
  useCliHarness,
} from '../support/cli-harness.js';

/**
 * Every operator verb as a real `harness` process against the shared server, with a real worker (the
 * harness fixture) on a private task queue and temp stores the CLI reaches through HARNESS_* settings.
 *
 * This file: operating runs (list, show, approve, reject, input, cancel, replay, a run past retention).
 */
describe('harness CLI against a real worker', () => {
  useCliHarness();

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
});
