import { canonicalJson } from './canonical-json.js';
import {
  compactModelInput,
  compactToolInput,
  type ModelDefaulted,
  type ToolDefaulted,
} from './compact-step-input.js';
import type { RunHeaderV3 } from './packed-events-v3.js';
import { versionedName } from './versioned-name.js';

/**
 * The step inputs as `callModelV3` and `runToolV3` take them (the third step format,
 * packed-events-v3.ts), on top of the second format's compaction (compact-step-input.ts): fields that
 * have their **default** are left out, and `off` names the defaulted fields the call does not have.
 *
 * - **Constants** (frozen): the run's flags as a run of this release sets them (model calls:
 *   `invalidToolCalls: 'report'`, `contextOrder: 'priority'`, `workerRefusal: true`; tool calls:
 *   `recordFailedAttempts: true`, `workerRefusal: true`) and a model call's `purpose: 'decide'`.
 * - **The batch's header** (once per execution, by reference): a model call's `modelRoute` is the
 *   run's (`versions.modelRoute`); with the header's per-execution call defaults (`calls`), every
 *   call's `configPin` is the run's, a model call's `toolKeys` are the pinned tools (sorted), and
 *   a tool call's `definitionDigest` is the pinned one of its tool.
 *
 * A call whose batch has no events has no header: only the constants apply. Pure.
 */

/** The constant defaults of a model call (frozen). */
export const MODEL_DEFAULTS_V3: Readonly<Record<string, unknown>> = Object.freeze({
  invalidToolCalls: 'report',
  contextOrder: 'priority',
  workerRefusal: true,
  purpose: 'decide',
});

/** The constant defaults of a tool call (frozen). */
export const TOOL_DEFAULTS_V3: Readonly<Record<string, unknown>> = Object.freeze({
  recordFailedAttempts: true,
  workerRefusal: true,
});

/** What the third format adds to a compact input: the defaulted fields it does not have. */
export interface DefaultsOff {
  readonly off?: readonly string[];
}

type Fields = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The header's call defaults as far as they have the shape the format gives them. */
function callsOf(run: RunHeaderV3 | undefined): { pin?: unknown; tools?: Fields } {
  const calls: unknown = run?.calls;
  if (!isRecord(calls)) return {};
  const pin = calls.configPin;
  const ok = isRecord(pin) && typeof pin.digest === 'string' && typeof pin.modelRoute === 'string';
  return { ...(ok ? { pin } : {}), ...(isRecord(calls.tools) ? { tools: calls.tools } : {}) };
}

/** A model call's defaults under its batch's header. */
export function modelDefaults(run: RunHeaderV3 | undefined): Record<string, unknown> {
  const { pin, tools } = callsOf(run);
  return {
    ...MODEL_DEFAULTS_V3,
    ...(run ? { modelRoute: run.versions.modelRoute } : {}),
    ...(tools ? { toolKeys: Object.keys(tools).sort() } : {}),
    ...(pin ? { configPin: pin } : {}),
  };
}

/** A tool call's defaults under its batch's header (`tool`, `version`: the call's own). */
export function toolDefaults(
  run: RunHeaderV3 | undefined,
  call: { readonly tool: string; readonly version: string },
): Record<string, unknown> {
  const { pin, tools } = callsOf(run);
  const digest = tools?.[versionedName(call.tool, call.version)];
  return {
    ...TOOL_DEFAULTS_V3,
    ...(typeof digest === 'string' ? { definitionDigest: digest } : {}),
    ...(pin ? { configPin: pin } : {}),
  };
}

/** `input` without the fields that have their default, and `off` naming those it lacks. */
export function compactDefaults<T extends object>(input: T, defaults: Fields): T & DefaultsOff {
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  const off: string[] = [];
  for (const [k, v] of Object.entries(defaults)) {
    const own = out[k];
    if (own === undefined) off.push(k);
    if (own === undefined || canonicalJson(own) === canonicalJson(v)) delete out[k];
  }
  return { ...out, ...(off.length > 0 ? { off } : {}) } as T & DefaultsOff;
}

/**
 * The input with its defaults again (inverse of {@link compactDefaults} given the same defaults).
 * @throws Error when `off` is not a list of the defaulted fields' names, or names one the input has.
 */
export function completeDefaults<T extends object>(input: T & DefaultsOff, defaults: Fields): T {
  const { off: listed = [], ...rest } = input as Record<string, unknown> & { off?: unknown };
  const named = (k: unknown): k is string => typeof k === 'string' && Object.hasOwn(defaults, k);
  if (!Array.isArray(listed) || !listed.every(named))
    throw new Error('the input names fields it leaves out that have no default');
  const off: readonly string[] = listed;
  if (off.some((k) => rest[k] !== undefined)) throw new Error('the input has a field it says it leaves out');
  for (const [k, v] of Object.entries(defaults)) {
    if (off.includes(k)) delete rest[k];
    else if (rest[k] === undefined) rest[k] = v;
  }
  return rest as T;
}

/** A model call's input as `callModelV3` takes it (its batch already packed in the third format). */
export function compactModelInputV3<T extends ModelDefaulted>(
  input: T,
  workflowId: string,
  run: RunHeaderV3 | undefined,
) {
  return compactDefaults(compactModelInput(input, workflowId), modelDefaults(run));
}

/** A tool call's input as `runToolV3` takes it (its batch already packed in the third format). */
export function compactToolInputV3<
  T extends ToolDefaulted & { readonly tool: string; readonly version: string },
>(input: T, workflowId: string, digestOf: (args: unknown) => string, run: RunHeaderV3 | undefined) {
  return compactDefaults(compactToolInput(input, workflowId, digestOf), toolDefaults(run, input));
}
