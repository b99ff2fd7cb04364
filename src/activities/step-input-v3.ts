import { ApplicationFailure } from '@temporalio/activity';
import type {
  CompactModelInputV3,
  CompactToolInputV3,
  ModelCallActivityInputV2,
  ModelCallActivityInputV3,
  ToolCallActivityInputV2,
  ToolCallActivityInputV3,
} from '../contract/activity-interfaces.js';
import { completeModelInput, completeToolInput } from '../contract/compact-step-input.js';
import {
  completeDefaults,
  modelDefaults,
  toolDefaults,
  type DefaultsOff,
} from '../contract/compact-step-input-v3.js';
import { modelCallDerivation, type EventDerivation } from '../contract/packed-events-by-ref.js';
import {
  expandEventsV3,
  toolCallDerivationV3,
  type PackedEventsV3,
  type RunHeaderV3,
} from '../contract/packed-events-v3.js';
import { batchHeader, type HeaderStore } from './run-header.js';

const refused = (type: string, err: unknown): ApplicationFailure =>
  ApplicationFailure.create({
    type,
    nonRetryable: true,
    message: `the step input cannot be restored: ${(err as Error).message}`,
  });

/** `fn()`, its Error refused non-retryably as `type`. */
function restoring<T>(type: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw refused(type, err);
  }
}

/** The batch in the second format, every item whole (an empty batch stays empty). */
function expanded(
  run: RunHeaderV3 | undefined,
  events: PackedEventsV3,
  derive: EventDerivation,
): ToolCallActivityInputV2['events'] {
  if (!run) return { header: '', items: [] };
  return restoring('events.invalid_batch', () => expandEventsV3(run, events, derive));
}

/**
 * `callModelV3`'s input as `callModelV2`'s implementation reads it: the run id, the defaults
 * (compact-step-input-v3.ts: constants, and the batch header's) and every item of the batch restored
 * (packed-events-v3.ts), the header still by reference, so the second format's code stores exactly what it stores for `callModelV2`.
 * Nothing is stored here; the header is read (memory, else the store) when the batch names it.
 *
 * Failure semantics (all non-retryable, nothing stored): the header as `batchHeader` says
 * (`events.header_*`), `off` naming fields without a default or that the input has
 * `step.invalid_input`, an item that cannot be completed `events.invalid_batch`. The store's own
 * errors propagate as they are (retryable).
 */
export async function restoreModelInputV3(
  store: HeaderStore,
  input: CompactModelInputV3,
  workflowId: string,
): Promise<ModelCallActivityInputV2> {
  // The second format's completion keeps every other field (`off` too).
  const withRun = completeModelInput<ModelCallActivityInputV3>(
    input,
    workflowId,
  ) as ModelCallActivityInputV3 & DefaultsOff;
  const run: RunHeaderV3 | undefined = await batchHeader(store, withRun.events, withRun.runId);
  const full = restoring('step.invalid_input', () =>
    completeDefaults<ModelCallActivityInputV3>(withRun, modelDefaults(run)),
  );
  return { ...full, events: expanded(run, full.events, modelCallDerivation(full)) };
}

/**
 * `runToolV3`'s input as `runToolV2`'s implementation reads it (see {@link restoreModelInputV3});
 * `digestOf` is the worker's digest of the arguments (the second format's default digest).
 *
 * Failure semantics: as {@link restoreModelInputV3}. The caller runs it before the effect, so a write
 * whose input cannot be restored fails `tool.not_started` (tool-activities.ts).
 */
export async function restoreToolInputV3(
  store: HeaderStore,
  input: CompactToolInputV3,
  workflowId: string,
  digestOf: (args: unknown) => string,
): Promise<ToolCallActivityInputV2> {
  const withRun = completeToolInput<ToolCallActivityInputV3>(
    input,
    workflowId,
    digestOf,
  ) as ToolCallActivityInputV3 & DefaultsOff;
  const run: RunHeaderV3 | undefined = await batchHeader(store, withRun.events, withRun.runId);
  const full = restoring('step.invalid_input', () =>
    completeDefaults<ToolCallActivityInputV3>(withRun, toolDefaults(run, withRun)),
  );
  return { ...full, events: expanded(run, full.events, toolCallDerivationV3(full)) };
}
