import { composeAgentRun } from '../../workflows/index.js';
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { startAgentRun } from '../../client/start-run.js';
import type { HarnessApp } from '../../worker/app.js';
import { isHarnessError } from '../../contract/errors.js';
import { TERMINAL_STATUSES } from '../../contract/statuses.js';
import type { AgentRunResult } from '../../workflows/index.js';
import type { RunView } from '../../contract/run-view.js';
import { harnessSettings } from '../../worker/settings.js';
import { buildRunInput, resolvePolicy, resolveProfile } from '../../client/build-run-input.js';
import { connectTemporal } from '../connect.js';
import { CliError, EXIT, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { parsePositiveInt, readJsonObject } from '../read-json.js';
import { sleep } from '../run-access.js';
import { signingKey } from './decide.js';
import { versionedName } from '../../contract/versioned-name.js';

export interface StartOptions {
  readonly version?: string;
  readonly policy?: string;
  readonly input: string;
  readonly id?: string;
  readonly modelRoute?: string;
  readonly budget?: string;
  readonly approvalTimeout?: string;
  readonly thread?: string;
  readonly tenant?: string;
  readonly user?: string;
  /** A key file to sign the start with: the run is for the key's principal (docs/authorization.md). */
  readonly key?: string;
  readonly wait?: boolean;
}

/**
 * `harness start <profile>`: validate everything first against the app's definition (exit 2, nothing
 * started), start `agentRun`; with `--wait`, follow the status until the run ends. Needs no worker
 * composition: the run pins its tools, model route and config from the worker that serves its start.
 * With `--key` the start is signed with that key file (docs/authorization.md, "Who a run is for"): the
 * run is for the key's principal, its `userId` (a `--user` naming anyone else is a usage error, exit 2);
 * without it the run is anonymous. Never `HARNESS_KEY`: an approver's key would make them the requester
 * of the runs they start, who never approves.
 */
export async function startCommand(
  app: HarnessApp,
  profileSpec: string,
  o: StartOptions,
  out: Output,
): Promise<number> {
  const definition = composeAgentRun(app.definition);
  const profile = asUsage(() => resolveProfile(definition, profileSpec, o.version));
  const policy = asUsage(() => resolvePolicy(definition, o.policy, profile));
  const task = readJsonObject('--input', o.input);
  const budget = o.budget === undefined ? undefined : readJsonObject('--budget', o.budget);
  const approvalTimeoutSeconds =
    o.approvalTimeout === undefined ? undefined : parsePositiveInt('--approval-timeout', o.approvalTimeout);
  const key = o.key === undefined ? undefined : signingKey({ key: o.key });
  if (key !== undefined && o.user !== undefined && o.user !== key.principal)
    throw usageError(
      `--user ${o.user}: a start signed with --key is for the key's principal ${key.principal}`,
      { option: '--user' },
    );
  const settings = harnessSettings();
  // No worker composition here: no model credentials, no stores. The run pins its tools, model route
  // and config from the worker that serves its start.
  const input = asUsage(() =>
    buildRunInput({
      profile,
      policy,
      task,
      budget,
      approvalTimeoutSeconds,
      modelRoute: o.modelRoute,
      threadId: o.thread,
      tenantId: o.tenant,
      userId: o.user ?? key?.principal,
    }),
  );
  const workflowId =
    o.id ??
    `${profile.name}-${new Date()
      .toISOString()
      .replace(/[-:.TZ]/g, '')
      .slice(0, 14)}-${randomUUID().slice(0, 8)}`;
  const t = await connectTemporal();
  try {
    let handle;
    try {
      handle = await startAgentRun(t.client, {
        taskQueue: settings.taskQueue,
        workflowId,
        input,
        ...(key !== undefined ? { signer: { key } } : {}),
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw usageError(`--id: a workflow with id ${workflowId} is already running or kept with that id`, {
          field: 'id',
        });
      if (isHarnessError(err, 'run.invalid_input')) throw usageError(err.message);
      throw err;
    }
    const runId = handle.firstExecutionRunId;
    if (!o.wait) {
      out.data({ workflowId, runId, status: 'started', ...(key ? { signedBy: key.principal } : {}) });
      out.line(`started ${workflowId} (run id ${runId})`);
      out.line(
        key
          ? `  for ${key.principal} (the start is signed with key ${key.keyId})`
          : '  unsigned: the run is anonymous (sign the start with --key <file>)',
      );
      out.line(
        `  profile ${versionedName(profile.name, profile.version)}, policy ${versionedName(policy.name, policy.version)}, model route ${input.modelRoute ?? "the worker's default"}, task queue ${settings.taskQueue}`,
      );
      out.line(`  follow with: harness show ${workflowId}  |  harness events ${workflowId} --follow`);
      return EXIT.ok;
    }
    out.progress(`started ${workflowId}; waiting for it to end`);
    const watcher = watchStatus(handle, out, workflowId);
    let result: AgentRunResult;
    try {
      result = await handle.result();
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const cause = err.cause?.message ?? err.message;
        out.data({ workflowId, runId, status: 'workflow_failed', error: cause });
        throw new CliError('cli.run_failed', `workflow ${workflowId} failed: ${cause}`, EXIT.runtime);
      }
      throw err;
    } finally {
      watcher.stop();
    }
    out.data({
      workflowId,
      runId,
      status: result.status,
      output: result.output,
      terminalReason: result.terminalReason,
    });
    out.line(`${workflowId} ended: ${result.status}`);
    if (result.terminalReason)
      out.line(`  reason: ${result.terminalReason.code}: ${result.terminalReason.message}`);
    out.line(`  output: ${JSON.stringify(result.output)}`);
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runtime;
  } finally {
    await t.close();
  }
}

/** Print each status change (and how to decide when the run waits) to stderr while `--wait` blocks. */
function watchStatus(
  handle: { query<T>(name: string): Promise<T> },
  out: Output,
  id: string,
): { stop(): void } {
  let running = true;
  void (async () => {
    let last = '';
    while (running) {
      try {
        const v = await handle.query<RunView>('state');
        const key = `${v.status}|${v.waitingReason ?? ''}`;
        if (key !== last && running) {
          last = key;
          out.progress(`  status ${v.status}${v.waitingReason ? ` (waiting: ${v.waitingReason})` : ''}`);
          if (v.pendingAction && v.humanRequest)
            out.progress(
              `  ${v.humanRequest.requestSummary}\n  decide with: harness approve ${id}  |  harness reject ${id} --reason "..."`,
            );
        }
        if (TERMINAL_STATUSES.includes(v.status)) return;
      } catch {
        /* not started yet */
      }
      await sleep(500);
    }
  })();
  return { stop: () => (running = false) };
}

/** A request the shared start code refuses (`run.invalid_input`) is a usage error here (exit 2). */
function asUsage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isHarnessError(err, 'run.invalid_input')) throw usageError(err.message, err.details);
    throw err;
  }
}
