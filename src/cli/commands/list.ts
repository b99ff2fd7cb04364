import {
  AgentProfileKey as AgentProfile,
  AgentStatusKey as AgentStatus,
  AgentWaitingReasonKey as AgentWaitingReason,
} from '../../contract/visibility.js';
import { RunStatusSchema } from '../../contract/statuses.js';
import { connectTemporal } from '../connect.js';
import { EXIT, usageError } from '../errors.js';
import { table, type Output } from '../output.js';
import { parsePositiveInt } from '../read-json.js';

export interface ListOptions {
  readonly status?: string;
  readonly limit: string;
}

/** One row of `harness list`. */
export interface RunListRow {
  readonly workflowId: string;
  readonly runId: string;
  readonly status: string | null;
  readonly waitingReason: string | null;
  readonly profile: string | null;
  readonly startTime: string;
  readonly executionStatus: string;
}

/** The visibility query of `harness list`; `status` must be a run status (validated by the caller). */
export function listQuery(status?: string): string {
  return `WorkflowType = 'agentRun'${status ? ` AND AgentStatus = '${status}'` : ''}`;
}

/**
 * `harness list`: agentRun workflows from the visibility store, newest first (visibility is
 * eventually consistent: a change shows up within about a second).
 */
export async function listCommand(o: ListOptions, out: Output): Promise<number> {
  if (o.status !== undefined && !RunStatusSchema.safeParse(o.status).success) {
    throw usageError(
      `--status: ${JSON.stringify(o.status)} is not a run status (${RunStatusSchema.options.join(', ')})`,
      { option: '--status' },
    );
  }
  const limit = parsePositiveInt('--limit', o.limit);
  const t = await connectTemporal();
  try {
    const rows: RunListRow[] = [];
    for await (const info of t.client.workflow.list({
      query: listQuery(o.status),
      pageSize: Math.min(limit, 1000),
    })) {
      rows.push({
        workflowId: info.workflowId,
        runId: info.runId,
        status: info.typedSearchAttributes.get(AgentStatus) ?? null,
        waitingReason: info.typedSearchAttributes.get(AgentWaitingReason) ?? null,
        profile: info.typedSearchAttributes.get(AgentProfile) ?? null,
        startTime: info.startTime.toISOString(),
        executionStatus: info.status.name,
      });
      if (rows.length >= limit) break;
    }
    out.data(rows);
    if (rows.length === 0) out.line(`no agentRun workflows${o.status ? ` with status ${o.status}` : ''}`);
    else
      out.line(
        table(
          ['ID', 'STATUS', 'WAITING', 'PROFILE', 'STARTED'],
          rows.map((r) => [
            r.workflowId,
            r.status ?? r.executionStatus.toLowerCase(),
            r.waitingReason === 'none' ? null : r.waitingReason,
            r.profile,
            r.startTime,
          ]),
        ),
      );
    return EXIT.ok;
  } finally {
    await t.close();
  }
}
