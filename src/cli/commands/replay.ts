import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { bundleWorkflows } from '../../worker/bundle.js';
import { recordedWorkflowId } from '../../worker/history-fixtures.js';
import { installWorkerRuntime } from '../../worker/runtime.js';
import { connectTemporal, describeRun } from '../connect.js';
import { CliError, EXIT, notFoundError, usageError } from '../errors.js';
import type { Output } from '../output.js';
import type { HarnessApp } from '../../worker/app.js';
import { harnessDataConverter } from '../../codec/data-converter.js';
import { payloadCodecFromEnv } from '../../codec/codec-from-env.js';
import type { FailureSample } from '../../client/failures/failure-sample.js';
import { reproduceFailure } from '../../client/failures/reproduce-failure.js';
import {
  isFailureSampleFolder,
  readFailureSampleFolder,
} from '../../client/failures/failure-sample-folder.js';

/** Fetch a workflow's full history (all pages). @throws CliError exit 3 when no workflow has the id. */
async function fetchHistory(id: string): Promise<temporal.api.history.v1.IHistory> {
  const t = await connectTemporal();
  try {
    const handle = t.client.workflow.getHandle(id);
    await describeRun(handle);
    return await handle.fetchHistory();
  } finally {
    await t.close();
  }
}

function readHistoryFile(file: string): temporal.api.history.v1.IHistory {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw notFoundError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { file },
    );
  }
  try {
    return historyFromJSON(JSON.parse(text));
  } catch (err) {
    throw usageError(
      `${file} is not a workflow history in JSON (as written by \`harness history\` or \`temporal workflow show --output json\`): ${(err as Error).message}`,
      { file },
    );
  }
}

/** `name.json` or anything with a path separator is a file; otherwise a workflow id. */
function isFileArgument(arg: string): boolean {
  return arg.endsWith('.json') || arg.includes('/') || existsSync(arg);
}

/** Read a failure sample folder for replay. @throws CliError exit 2 when it is not a valid sample. */
function readSample(dir: string): { sample: FailureSample; history: temporal.api.history.v1.IHistory } {
  try {
    return readFailureSampleFolder(dir);
  } catch (err) {
    throw usageError((err as Error).message, { dir });
  }
}

/**
 * `harness replay <id | history.json | sample folder>`: replay a history against the current
 * workflow code (the bundle of `HARNESS_WORKFLOW_BUNDLE`, or bundled now). Exit 0 "replayed OK", exit
 * 1 with the non-determinism error. For a failure sample folder it also states the failure the
 * replayed run ends with (status and code of the recorded end) and exits 1 when that is not the
 * sample's failure.
 */
export async function replayCommand(app: HarnessApp, arg: string, out: Output): Promise<number> {
  const sampled = isFailureSampleFolder(arg) ? readSample(arg) : undefined;
  const fromFile = sampled !== undefined || isFileArgument(arg);
  const history = sampled?.history ?? (fromFile ? readHistoryFile(arg) : await fetchHistory(arg));
  const events = history.events?.length ?? 0;
  if (events === 0) throw usageError(`${arg}: the history has no events`);
  // An encrypted history replays with the codec keys of the environment (docs/security.md).
  const dataConverter = harnessDataConverter(payloadCodecFromEnv());
  installWorkerRuntime();
  const bundlePath = process.env.HARNESS_WORKFLOW_BUNDLE;
  if (!bundlePath) out.progress('bundling the workflow code…');
  const workflowBundle = bundlePath
    ? { codePath: bundlePath }
    : await bundleWorkflows({ workflowsPath: app.workflowsPath });
  out.progress(`replaying ${events} events of ${arg}…`);
  // Replay under the id the history was recorded with: a run may depend on it (signed decisions are
  // bound to their workflow id).
  const workflowId = fromFile
    ? (recordedWorkflowId(history) ?? arg.replace(/^.*\//, '').replace(/\.json$/, ''))
    : arg;
  if (!sampled) {
    try {
      await Worker.runReplayHistory(
        { workflowBundle, replayName: workflowId, ...(dataConverter ? { dataConverter } : {}) },
        history,
        workflowId,
      );
    } catch (err) {
      throw replayFailed(arg, events, out, err as Error);
    }
    out.data({ source: arg, events, ok: true });
    out.line(`replayed OK: ${arg} (${events} events)`);
    return EXIT.ok;
  }
  const expected = { status: sampled.sample.failure.status, code: sampled.sample.failure.code };
  const codec = payloadCodecFromEnv();
  const outcome = await reproduceFailure({
    history,
    workflowId,
    expected,
    workflowBundle,
    ...(dataConverter ? { dataConverter } : {}),
    ...(codec ? { codec } : {}),
  });
  if ('error' in outcome) throw replayFailed(arg, events, out, outcome.error);
  const end = outcome.ended;
  out.data({ source: arg, events, ok: outcome.reproduced, failure: end ?? null, expected });
  if (!outcome.reproduced || !end)
    throw new CliError(
      'cli.replay_not_reproduced',
      `${arg} replayed, but its run ends ${end ? `${end.status} (${end.code ?? 'no code'})` : 'without a readable end'}, not ${expected.status} (${expected.code})`,
      EXIT.runtime,
      { expected, ended: end ?? null },
    );
  out.line(`replayed OK: ${arg} (${events} events); reproduces ${end.status} (${end.code})`);
  return EXIT.ok;
}

/** The replay error as data and as the command's error (exit 1). */
function replayFailed(
  arg: string,
  events: number,
  out: Output,
  e: { name: string; message: string },
): CliError {
  out.data({ source: arg, events, ok: false, error: { name: e.name, message: e.message } });
  return new CliError('cli.replay_failed', `replay of ${arg} failed: ${e.name}: ${e.message}`, EXIT.runtime, {
    name: e.name,
  });
}

/** `harness history <id> [--out file]`: export a workflow history as JSON (the input of `replay`). */
export async function historyCommand(id: string, o: { out?: string }, out: Output): Promise<number> {
  const history = await fetchHistory(id);
  const text = `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`;
  if (!o.out) {
    process.stdout.write(text);
    return EXIT.ok;
  }
  writeFileSync(o.out, text);
  out.data({ workflowId: id, file: o.out, events: history.events?.length ?? 0 });
  out.line(`wrote ${history.events?.length ?? 0} events of ${id} to ${o.out}`);
  return EXIT.ok;
}
