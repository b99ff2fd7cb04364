/**
 * The step activities' inputs as `callModelV2` and `runToolV2` take them (second baseline,
 * run-patches.ts): fields the activity computes from the rest or from its own activity info are left
 * out when they are exactly that, about 200 bytes of history per step. The run id when it is the
 * workflow id (it always is for `agentRun`); for a tool call also the arguments digest (`sha256:` of the
 * arguments' canonical JSON) and the idempotency key (`<runId>/<seq>`). Pure: the workflow compacts,
 * the activity completes with its own digest function, and both give the same digest (tested).
 */

/** The fields a compact model-call input may leave out. */
export interface ModelDefaulted {
  readonly runId: string;
}

/** The fields a compact tool-call input may leave out. */
export interface ToolDefaulted extends ModelDefaulted {
  readonly seq: number;
  readonly args: Readonly<Record<string, unknown>>;
  readonly argsDigest: string;
  readonly idempotencyKey: string;
}

/** A model-call input with its run id optional. */
export type CompactModelInput<T extends ModelDefaulted> = Omit<T, 'runId'> & Partial<Pick<T, 'runId'>>;

/** A tool-call input with its run id, arguments digest and idempotency key optional. */
export type CompactToolInput<T extends ToolDefaulted> = Omit<T, 'runId' | 'argsDigest' | 'idempotencyKey'> &
  Partial<Pick<T, 'runId' | 'argsDigest' | 'idempotencyKey'>>;

/** The idempotency key of an invocation that has no other: `<runId>/<seq>`. */
export function defaultIdempotencyKey(runId: string, seq: number): string {
  return `${runId}/${seq}`;
}

/** `input` without its run id when that is `workflowId`. */
export function compactModelInput<T extends ModelDefaulted>(
  input: T,
  workflowId: string,
): CompactModelInput<T> {
  const { runId, ...rest } = input;
  return { ...rest, ...(runId !== workflowId ? { runId } : {}) };
}

/** The whole input again (inverse of {@link compactModelInput}; `workflowId` from the activity's info). */
export function completeModelInput<T extends ModelDefaulted>(
  input: CompactModelInput<T>,
  workflowId: string,
): T {
  return { ...input, runId: input.runId ?? workflowId } as T;
}

/** `input` without the fields that equal what {@link completeToolInput} would give. */
export function compactToolInput<T extends ToolDefaulted>(
  input: T,
  workflowId: string,
  digestOf: (args: unknown) => string,
): CompactToolInput<T> {
  const { runId, argsDigest, idempotencyKey, ...rest } = input;
  return {
    ...rest,
    ...(runId !== workflowId ? { runId } : {}),
    ...(argsDigest !== digestOf(input.args) ? { argsDigest } : {}),
    ...(idempotencyKey !== defaultIdempotencyKey(runId, input.seq) ? { idempotencyKey } : {}),
  };
}

/** The whole input again (inverse of {@link compactToolInput}). */
export function completeToolInput<T extends ToolDefaulted>(
  input: CompactToolInput<T>,
  workflowId: string,
  digestOf: (args: unknown) => string,
): T {
  const runId = input.runId ?? workflowId;
  return {
    ...input,
    runId,
    argsDigest: input.argsDigest ?? digestOf(input.args),
    idempotencyKey: input.idempotencyKey ?? defaultIdempotencyKey(runId, input.seq),
  } as T;
}
