import { canonicalJson } from './canonical-json.js';
import {
  compactModelInput,
  compactToolInput,
  type ModelDefaulted,
  type ToolDefaulted,
} from './compact-step-input.js';
import type { RunConfigPin } from './run-config.js';
import type { RunHeader } from './packed-events.js';

/**
 * The step inputs as `callModelV3` and `runToolV3` take them (the third step format,
 * packed-events-v3.ts), on top of the second format's compaction (compact-step-input.ts): the run's
 * flags and its config pin, the same in every call of an execution, are left out when they have
 * their default.
 *
 * - **Flags** default to on, as a run of this release sets them (model calls: `invalidToolCalls:
 *   'report'`, `contextOrder: 'priority'`, `workerRefusal: true`; tool calls: `recordFailedAttempts:
 *   true`, `workerRefusal: true`). A flag the call does not have is named in `off`; another value
 *   travels as it is.
 * - **The config pin** defaults to the run header's (`versions.configDigest` under
 *   `versions.modelRoute`: the run records its pin there, run-config.ts) when the call's batch has a
 *   header; a call without one names `configPin` in `off`.
 *
 * Frozen like the event format: a change is a new format under new names. Pure.
 */

/** The defaulted flags of a model call (frozen). */
export const MODEL_FLAGS_V3: Readonly<Record<string, unknown>> = Object.freeze({
  invalidToolCalls: 'report',
  contextOrder: 'priority',
  workerRefusal: true,
});

/** The defaulted flags of a tool call (frozen). */
export const TOOL_FLAGS_V3: Readonly<Record<string, unknown>> = Object.freeze({
  recordFailedAttempts: true,
  workerRefusal: true,
});

/** What the third format adds to a compact input: the defaulted fields it does not have. */
export interface DefaultsOff {
  readonly off?: readonly string[];
}

/** The config pin a call has by default: the header's, when its batch has one. */
export function headerConfigPin(run: RunHeader | undefined): RunConfigPin | undefined {
  return run ? { digest: run.versions.configDigest, modelRoute: run.versions.modelRoute } : undefined;
}

/** The defaults of one call: its flags, and the config pin of its batch's header. */
function defaultsOf(
  flags: Readonly<Record<string, unknown>>,
  run: RunHeader | undefined,
): Record<string, unknown> {
  const pin = headerConfigPin(run);
  return pin ? { ...flags, configPin: pin } : { ...flags };
}

/** `input` without the fields that have their default, and `off` naming those it lacks. */
export function compactDefaults<T extends object>(
  input: T,
  flags: Readonly<Record<string, unknown>>,
  run: RunHeader | undefined,
): T & DefaultsOff {
  const out: Record<string, unknown> = { ...input };
  const off: string[] = [];
  for (const [k, v] of Object.entries(defaultsOf(flags, run))) {
    const own = out[k];
    if (own === undefined) off.push(k);
    else if (canonicalJson(own) === canonicalJson(v)) delete out[k];
  }
  return { ...out, ...(off.length > 0 ? { off } : {}) } as T & DefaultsOff;
}

/**
 * The input with its defaults again (inverse of {@link compactDefaults}, given the same header).
 * @throws Error when `off` is not a list of the defaulted fields' names, or names one the input has.
 */
export function completeDefaults<T extends object>(
  input: T & DefaultsOff,
  flags: Readonly<Record<string, unknown>>,
  run: RunHeader | undefined,
): T {
  const { off = [], ...rest } = input as Record<string, unknown> & DefaultsOff;
  const defaults = defaultsOf(flags, run);
  if (!Array.isArray(off) || off.some((k) => typeof k !== 'string' || !Object.hasOwn(defaults, k)))
    throw new Error('the input names fields it leaves out that have no default');
  if (off.some((k) => rest[k] !== undefined)) throw new Error('the input has a field it says it leaves out');
  for (const [k, v] of Object.entries(defaults)) if (rest[k] === undefined && !off.includes(k)) rest[k] = v;
  return rest as T;
}

/** A model call's input as `callModelV3` takes it (its batch already packed in the third format). */
export function compactModelInputV3<T extends ModelDefaulted>(
  input: T,
  workflowId: string,
  run: RunHeader | undefined,
) {
  return compactDefaults(compactModelInput(input, workflowId), MODEL_FLAGS_V3, run);
}

/** A tool call's input as `runToolV3` takes it (its batch already packed in the third format). */
export function compactToolInputV3<T extends ToolDefaulted>(
  input: T,
  workflowId: string,
  digestOf: (args: unknown) => string,
  run: RunHeader | undefined,
) {
  return compactDefaults(compactToolInput(input, workflowId, digestOf), TOOL_FLAGS_V3, run);
}
