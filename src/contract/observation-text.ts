import type { Observation } from './observation.js';
import type { ToolCallResult } from './step-io.js';

/** Maximum characters of a tool output the model sees in an observation. */
export const MAX_OBSERVATION_OUTPUT_CHARS = 8_000;

function boundOutput(
  output: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (output === undefined) return undefined;
  const text = JSON.stringify(output);
  if (text.length <= MAX_OBSERVATION_OUTPUT_CHARS) return { ...output };
  return { truncated: true, preview: text.slice(0, MAX_OBSERVATION_OUTPUT_CHARS) };
}

export interface ObservationBase {
  readonly runId: string;
  readonly seq: number;
  readonly tool: string;
  readonly version: string;
  readonly at: string;
}

/** A structured rejection the model can read (schema, unknown tool, policy, approval, budget). */
export function rejectedObservation(
  base: ObservationBase,
  errorCode: string,
  errorMessage: string,
  details?: Record<string, unknown>,
): Observation {
  return {
    toolCallId: `${base.runId}:${base.seq}`,
    seq: base.seq,
    toolName: base.tool,
    toolVersion: base.version,
    status: 'rejected',
    output: details,
    artifactIds: [],
    errorCode,
    errorMessage,
    startedAt: base.at,
    finishedAt: base.at,
  };
}

/** The observation of a completed tool activity. */
export function resultObservation(base: ObservationBase, result: ToolCallResult): Observation {
  return {
    toolCallId: `${base.runId}:${base.seq}`,
    seq: base.seq,
    toolName: base.tool,
    toolVersion: base.version,
    status: result.status,
    output: boundOutput(result.output),
    artifactIds: result.artifacts.map((a) => a.id),
    errorCode: result.errorCode ?? null,
    errorMessage: result.errorMessage ?? null,
    externalId: result.externalId,
    resultRef: `invocation://${base.runId}/${base.seq}`,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
  };
}

/** The fields of an observation the model reads. */
export interface ObservationView {
  readonly status: string;
  readonly tool: string;
  readonly seq: number;
  readonly output: Readonly<Record<string, unknown>> | null | undefined;
  readonly artifactIds: readonly string[];
  readonly errorCode: string | null | undefined;
  readonly errorMessage: string | null | undefined;
}

/**
 * The text a model reads for one observation: bounded, structured JSON, the same whether it is
 * built in the workflow or, from the evidence store, in the model activity.
 */
export function observationText(o: ObservationView): string {
  return JSON.stringify({
    status: o.status,
    tool: o.tool,
    seq: o.seq,
    output: boundOutput(o.output ?? undefined) ?? null,
    artifactIds: o.artifactIds,
    error: o.errorCode ? { code: o.errorCode, message: o.errorMessage ?? null } : null,
  });
}

/** An observation without a result: interrupted read, unknown or not-applied write, failure. */
export function statusObservation(
  base: ObservationBase,
  status: Observation['status'],
  errorCode: string | null,
  errorMessage: string | null,
): Observation {
  return {
    toolCallId: `${base.runId}:${base.seq}`,
    seq: base.seq,
    toolName: base.tool,
    toolVersion: base.version,
    status,
    artifactIds: [],
    errorCode,
    errorMessage,
    startedAt: base.at,
    finishedAt: base.at,
  };
}
