import type { RunRecord } from '../../activities/store/index.js';
import { connectTemporal, describeRun, openCliStore } from '../connect.js';
import { CliError, EXIT } from '../errors.js';
import type { Output } from '../output.js';
import { renderRun } from '../render-run.js';
import { queryState } from '../run-access.js';

/**
 * `harness show <id>`: the Temporal execution and the run's `state` query, readable or as JSON. When
 * Temporal no longer has the workflow (its history passed the namespace's retention, or another
 * server), the evidence store's run record is shown instead, said as such; exit 3 when neither has it.
 * With `HARNESS_SERVICE_URL` set, the last line links the run's page in the run service.
 */
export async function showCommand(id: string, out: Output): Promise<number> {
  const t = await connectTemporal();
  try {
    const handle = t.client.workflow.getHandle(id);
    let exec: Awaited<ReturnType<typeof describeRun>>;
    try {
      exec = await describeRun(handle);
    } catch (err) {
      if (!(err instanceof CliError) || err.code !== 'cli.not_found') throw err;
      const record = await storedRecord(id);
      if (record === undefined) throw err;
      out.data({ workflowId: id, execution: null, record });
      out.line(renderRecord(record));
      return EXIT.ok;
    }
    const state = await queryState(t, handle);
    out.data({ workflowId: exec.workflowId, execution: exec, state });
    out.line(renderRun(exec, state));
    const page = runPageUrl(id);
    if (page !== undefined) out.line(`page: ${page}`);
    return EXIT.ok;
  } finally {
    await t.close();
  }
}

/** The run's page in the run service (`HARNESS_SERVICE_URL` + `/runs/<id>`), when that is set. */
function runPageUrl(id: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const base = env.HARNESS_SERVICE_URL?.trim().replace(/\/+$/, '');
  return base ? `${base}/runs/${encodeURIComponent(id)}` : undefined;
}

async function storedRecord(id: string): Promise<RunRecord | undefined> {
  const store = await openCliStore();
  try {
    return await store.getRun(id);
  } finally {
    await store.close();
  }
}

function renderRecord(r: RunRecord): string {
  const v = r.versions;
  const lines = [
    `${r.runId}: not in Temporal any more (history past retention, or another server); from the evidence store's run record`,
    `status      ${r.status}${r.waitingReason ? ` (${r.waitingReason})` : ''}`,
    `profile     ${v.profile}    policy ${v.policy}`,
    `registry    ${v.toolRegistryDigest}    config ${v.configDigest}    model route ${v.modelRoute}`,
    `started     ${r.createdAt}    last event #${r.lastSeq} at ${r.updatedAt}`,
  ];
  if (r.userId !== undefined)
    lines.push(`for         ${r.userId}${r.tenantId ? ` (tenant ${r.tenantId})` : ''}`);
  if (r.endedAt !== null) lines.push(`ended       ${r.endedAt}`);
  if (r.terminalReason !== null) lines.push(`reason      ${JSON.stringify(r.terminalReason)}`);
  if (r.output !== null && r.output !== undefined) lines.push(`response    ${JSON.stringify(r.output)}`);
  if (r.budget !== null) lines.push(`budget      ${JSON.stringify(r.budget)}`);
  for (const d of r.decisions ?? [])
    lines.push(`decision    ${d.actionId} ${d.decision} by ${d.principal} (verified) at ${d.at}`);
  lines.push(`events: harness events ${r.runId}`);
  return lines.join('\n');
}
