import { connectTemporal, describeRun } from '../connect.js';
import { EXIT } from '../errors.js';
import type { Output } from '../output.js';
import { renderRun } from '../render-run.js';
import { queryState } from '../run-access.js';

/** `harness show <id>`: the Temporal execution and the run's `state` query, readable or as JSON. */
export async function showCommand(id: string, out: Output): Promise<number> {
  const t = await connectTemporal();
  try {
    const handle = t.client.workflow.getHandle(id);
    const exec = await describeRun(handle);
    const state = await queryState(t, handle);
    out.data({ workflowId: exec.workflowId, execution: exec, state });
    out.line(renderRun(exec, state));
    return EXIT.ok;
  } finally {
    await t.close();
  }
}
