import { join, resolve } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isHarnessError } from '../../contract/errors.js';
import { payloadCodecFromEnv } from '../../codec/codec-from-env.js';
import { FailureReasonSchema, type FailureSampleRecord } from '../../activities/store/index.js';
import type { HarnessApp } from '../../worker/app.js';
import { buildFailureSample } from '../../client/failures/failure-sample.js';
import { writeFailureSampleFolder } from '../../client/failures/failure-sample-folder.js';
import { connectTemporal, describeRun, openCliStore } from '../connect.js';
import { CliError, EXIT, notFoundError, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { parsePositiveInt } from '../read-json.js';
import { parseSince } from '../time-arg.js';

export interface FailuresListOptions {
  readonly since?: string;
  readonly reason?: string;
  readonly limit: string;
}

export interface FailuresExportOptions {
  readonly out?: string;
  readonly asCase?: boolean;
}

/**
 * `harness failures list [--since] [--reason] [--limit]`: the failure samples in the evidence store
 * (`HARNESS_STORE_URL`), newest end first. Needs no Temporal server.
 */
export async function failuresListCommand(o: FailuresListOptions, out: Output): Promise<number> {
  const limit = parsePositiveInt('--limit', o.limit);
  const reason = o.reason === undefined ? undefined : FailureReasonSchema.safeParse(o.reason);
  if (reason && !reason.success)
    throw usageError(`--reason must be one of ${FailureReasonSchema.options.join(', ')} (got "${o.reason}")`);
  const since = o.since === undefined ? undefined : parseSince(o.since);
  const store = await openCliStore();
  try {
    const samples = await store.listFailureSamples({
      ...(since ? { since } : {}),
      ...(reason?.data ? { reason: reason.data } : {}),
      limit: Math.min(limit, 5000),
    });
    for (const s of samples) {
      out.data(s);
      out.line(`${s.endedAt}  ${s.reason.padEnd(17)}  ${s.code.padEnd(28)}  ${s.runId}`);
    }
    if (samples.length === 0) out.progress('no failure samples');
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** The stored failure of `runId`. @throws CliError exit 3 when the run left none. */
async function storedFailure(runId: string): Promise<FailureSampleRecord> {
  const store = await openCliStore();
  try {
    const found = await store.getFailureSample(runId);
    if (!found)
      throw notFoundError(
        `run ${runId} left no failure sample (only runs that ended failed, budget_exhausted or blocked by a guardrail do; see \`harness failures list\`)`,
        { runId },
      );
    return found;
  } finally {
    await store.close();
  }
}

/**
 * `harness failures export <runId> [--out dir] [--as-case]`: write the run's failure sample folder
 * (`sample.json`, `history.json`; default `failure-samples/<runId>`), or with `--as-case` the app's
 * evaluation case made from it (`<out>/<case id>.json`, default folder `failure-cases`). The history
 * comes from the Temporal server (exit 3 once its retention removed it).
 */
export async function failuresExportCommand(
  app: HarnessApp,
  runId: string,
  o: FailuresExportOptions,
  out: Output,
): Promise<number> {
  if (o.asCase && !app.failureCase)
    throw usageError(`the app "${app.name}" does not turn failure samples into evaluation cases`, {
      app: app.name,
    });
  const failure = await storedFailure(runId);
  const t = await connectTemporal();
  const store = await openCliStore();
  try {
    const handle = t.client.workflow.getHandle(runId);
    await describeRun(handle); // exit 3 when the server no longer holds the workflow
    const history = await handle.fetchHistory();
    const codec = payloadCodecFromEnv();
    const sample = await buildFailureSample({ failure, history, store, ...(codec ? { codec } : {}) });
    if (o.asCase) {
      let made: ReturnType<NonNullable<HarnessApp['failureCase']>>;
      try {
        made = app.failureCase!(sample);
      } catch (err) {
        if (!isHarnessError(err)) throw err;
        throw new CliError(
          'cli.case_failed',
          `run ${runId} cannot become a case: ${err.message}`,
          EXIT.usage,
          {
            code: err.code,
          },
        );
      }
      if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(made.id))
        throw new CliError('cli.case_failed', `the app named the case "${made.id}"`, EXIT.runtime);
      const dir = resolve(o.out ?? 'failure-cases');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${made.id}.json`);
      writeFileSync(file, `${JSON.stringify(made.case, null, 1)}\n`);
      out.data({ runId, case: made.id, file });
      out.line(`wrote case ${made.id} of ${runId} to ${file}`);
      return EXIT.ok;
    }
    const dir = resolve(o.out ?? join('failure-samples', runId));
    writeFailureSampleFolder(dir, sample, history);
    out.data({ runId, dir, reason: failure.reason, code: failure.code, events: history.events?.length ?? 0 });
    out.line(`wrote the failure sample of ${runId} (${failure.reason}, ${failure.code}) to ${dir}`);
    return EXIT.ok;
  } finally {
    await store.close();
    await t.close();
  }
}
