import type { DataConverter, PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { harnessDataConverter } from '../../codec/data-converter.js';
import { decodeHistoryPayloads } from '../../codec/history-payloads.js';
import { recordedEndOf } from './failure-sample.js';

type History = temporal.api.history.v1.IHistory;

/** How a failure is recognised: the run's status and stable terminal code. */
export interface ExpectedFailure {
  readonly status: string;
  readonly code: string | null;
}

/** What a replay of a failed run's history showed. */
export type FailureReproduction =
  | {
      /** The replay ran through and the run ends with the expected failure. */
      readonly reproduced: boolean;
      /** How the replayed run ends (the history's recorded end); undefined when unreadable. */
      readonly ended: ExpectedFailure | undefined;
    }
  | {
      readonly reproduced: false;
      /** The replay itself failed (a non-determinism error: this build no longer makes the run's decisions). */
      readonly error: { readonly name: string; readonly message: string };
    };

export interface ReproduceFailureInput {
  readonly history: History;
  /** The workflow id the history was recorded under (a run may depend on it). */
  readonly workflowId: string;
  readonly expected: ExpectedFailure;
  readonly workflowBundle: WorkflowBundleWithSourceMap | { codePath: string };
  /** The deployment's converter and codec, for an encrypted history. */
  readonly dataConverter?: DataConverter;
  readonly codec?: PayloadCodec;
}

/**
 * Replay a failed run's history against `workflowBundle` (this build, no server) and compare how it
 * ends with `expected`. Replay proves the build makes the recorded run's decisions up to its end; the
 * end (the `agentRun` result's status and terminal code) says how it failed.
 * @returns the outcome; a replay error is returned, not thrown. @throws only when the worker runtime
 *   cannot be created.
 */
export async function reproduceFailure(i: ReproduceFailureInput): Promise<FailureReproduction> {
  try {
    await Worker.runReplayHistory(
      {
        workflowBundle: i.workflowBundle,
        replayName: i.workflowId,
        ...(i.dataConverter ? { dataConverter: i.dataConverter } : {}),
      },
      i.history,
      i.workflowId,
    );
  } catch (err) {
    const e = err as Error;
    return { reproduced: false, error: { name: e.name, message: e.message } };
  }
  const ended = recordedEndOf(i.codec ? await decodeHistoryPayloads(i.history, i.codec) : i.history);
  return {
    reproduced: ended?.status === i.expected.status && ended.code === i.expected.code,
    ended,
  };
}

/**
 * A replayer for failure samples of runs of `workflowBundle`: replays a failed run's last history and
 * tells whether it ends with the stored failure (for `collectRunEvidence`). With `codec`, encrypted
 * histories are read with it.
 */
export function failureReplayer(
  workflowBundle: ReproduceFailureInput['workflowBundle'],
  codec?: PayloadCodec,
): (failure: { runId: string; status: string; code: string | null }, history: History) => Promise<boolean> {
  const dataConverter = harnessDataConverter(codec);
  return async (failure, history) =>
    (
      await reproduceFailure({
        history,
        workflowId: failure.runId,
        expected: { status: failure.status, code: failure.code },
        workflowBundle,
        ...(dataConverter ? { dataConverter } : {}),
        ...(codec ? { codec } : {}),
      })
    ).reproduced;
}
