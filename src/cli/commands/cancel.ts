import { sendDecision, signedPayload } from '../../client/decisions/send-decision.js';
import { connectTemporal, describeRun } from '../connect.js';
import { EXIT, refusedError } from '../errors.js';
import type { Output } from '../output.js';
import { parsePositiveInt } from '../read-json.js';
import { isClosed, queryState, sleep } from '../run-access.js';
import { signingKey, type SigningOptions } from './decide.js';

export interface CancelOptions extends SigningOptions {
  readonly reason?: string;
  readonly temporal?: boolean;
  readonly wait: boolean;
  readonly timeout: string;
}

/**
 * `harness cancel <id>`: send a signed `cancelRun` by the `decide` update (the run records who and why,
 * settles and ends `cancelled`),
 * or with `--temporal` request Temporal cancellation. Waits (progress on stderr) until the workflow is
 * closed unless `--no-wait`. Exit 5 when the run is already closed, 1 when it is still open after `--timeout`.
 */
export async function cancelCommand(id: string, o: CancelOptions, out: Output): Promise<number> {
  const timeoutMs = parsePositiveInt('--timeout', o.timeout) * 1000;
  const t = await connectTemporal();
  try {
    const handle = t.client.workflow.getHandle(id);
    let exec = await describeRun(handle);
    if (isClosed(exec.status))
      throw refusedError(`run ${id} is already closed (${exec.status})`, {
        workflowId: id,
        executionStatus: exec.status,
      });
    const reason = o.reason ?? 'cancelled from the harness CLI';
    if (o.temporal) await handle.cancel();
    else {
      const outcome = await sendDecision(
        handle,
        'cancelRun',
        signedPayload(signingKey(o), await queryState(t, handle), 'cancelRun', { reason }, undefined),
      );
      if (!outcome.accepted)
        throw refusedError(`cancelRun refused by ${id}: ${outcome.code}: ${outcome.message}`, {
          workflowId: id,
          code: outcome.code,
        });
    }
    const via = o.temporal ? 'Temporal cancellation' : 'cancelRun signal';
    if (!o.wait) {
      out.data({ workflowId: id, requested: true, via, executionStatus: exec.status });
      out.line(`cancellation of ${id} requested (${via})`);
      return EXIT.ok;
    }
    out.progress(`cancellation of ${id} requested (${via}); waiting for the run to close`);
    const deadline = Date.now() + timeoutMs;
    while (!isClosed(exec.status) && Date.now() < deadline) {
      await sleep(300);
      exec = await describeRun(handle);
    }
    if (!isClosed(exec.status)) {
      out.data({ workflowId: id, requested: true, via, executionStatus: exec.status, status: null });
      out.line(`cancellation of ${id} requested, but the run is still open after ${timeoutMs / 1000}s`);
      return EXIT.runtime;
    }
    const state = await queryState(t, handle).catch(() => undefined);
    out.data({
      workflowId: id,
      requested: true,
      via,
      executionStatus: exec.status,
      status: state?.status ?? null,
      terminalReason: state?.terminalReason ?? null,
    });
    out.line(
      `${id} closed (${exec.status}); run status ${state?.status ?? 'unknown'}${state?.terminalReason ? ` (${state.terminalReason.code}: ${state.terminalReason.message})` : ''}`,
    );
    return EXIT.ok;
  } finally {
    await t.close();
  }
}
