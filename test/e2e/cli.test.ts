import { loadDecisionKey, publicKeyOf } from '../../src/client/decisions/decision-key.js';
import { loadPrincipalRegistry } from '../../src/activities/authz/principal-registry.js';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-support.js';
import { refundGraphProfile } from '../../apps/refund/workflow/refund-graph.js';
import { REFUND_TASK, REFUSED_TASK, json, h, env, id, cli, useCliHarness } from '../support/cli-harness.js';

/**
 * Every operator verb as a real `harness` process against the shared server, with a real worker (the
 * harness fixture) on a private task queue and temp stores the CLI reaches through HARNESS_* settings.
 *
 * This file: start, keys and exit codes; operating runs is test/e2e/cli-runs.test.ts.
 */
describe('harness CLI against a real worker', () => {
  useCliHarness();

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
