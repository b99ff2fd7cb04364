/**
 * Promises created in the workflow sandbox per run: `npx tsx bench/tools/count-promises.ts <dir>`
 * replays every history in `dir` (from record-histories.ts) once and counts, with an async hook, the
 * promises of another realm than this process's (the replay worker's V8 context: `debugMode`, main
 * thread). A harness history whose start memo lists the lean frame (`agent-run-lean-frame-v1`) is also
 * replayed with it left out of the memo: the scoped frame of the same run. Prints one line per history.
 * The count includes the bundle's module evaluation for the run, the same in both frames.
 */
import { createHook } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { START_FEATURES_MEMO_KEY } from '../../src/contract/visibility.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { recordedWorkflowId } from '../../src/worker/history-fixtures.js';
import { LEAN_FRAME_PATCH } from '../../src/workflows/temporal/run-patches.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';

type History = temporal.api.history.v1.IHistory;

/** The features its start memo lists, or undefined. */
function listedFeatures(history: History): string[] | undefined {
  const field =
    history.events?.[0]?.workflowExecutionStartedEventAttributes?.memo?.fields?.[START_FEATURES_MEMO_KEY];
  return field ? defaultPayloadConverter.fromPayload<string[]>(field) : undefined;
}

/** `history` with the lean frame left out of its start memo. */
function scoped(history: History, listed: readonly string[]): History {
  const copy = structuredClone(history);
  const started = copy.events![0]!.workflowExecutionStartedEventAttributes!;
  started.memo = {
    fields: {
      ...(started.memo?.fields ?? {}),
      [START_FEATURES_MEMO_KEY]: defaultPayloadConverter.toPayload(
        listed.filter((f) => f !== LEAN_FRAME_PATCH),
      ),
    },
  };
  return copy;
}

async function count(bundle: { code: string }, history: History, workflowId: string): Promise<number> {
  let sandbox = 0;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'PROMISE' && !(resource instanceof Promise)) sandbox += 1;
    },
  }).enable();
  try {
    await Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'count' }, history, workflowId);
  } finally {
    hook.disable();
  }
  return sandbox;
}

async function main(): Promise<void> {
  const [dir] = process.argv.slice(2);
  if (!dir) throw new Error('usage: count-promises.ts <dir>');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const history = historyFromJSON(JSON.parse(readFileSync(join(dir, f), 'utf8')));
    const id = recordedWorkflowId(history) ?? f;
    // Once to warm the bundle up, then counted.
    await count(bundle, history, id);
    const recorded = await count(bundle, history, id);
    const listed = listedFeatures(history);
    const other = listed?.includes(LEAN_FRAME_PATCH)
      ? await count(bundle, scoped(history, listed), id)
      : undefined;
    console.log(
      `${f.padEnd(16)} sandbox promises: ${recorded}${other !== undefined ? ` (scoped frame: ${other})` : ''}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
