import { z } from 'zod';
import { FailureSampleRecordSchema } from './failure-sample-record.js';

/** Version of the exported sample format (`sample.json`). */
export const FAILURE_SAMPLE_FORMAT = 1;

/** Files of an exported failure sample folder. */
export const FAILURE_SAMPLE_FILES = { sample: 'sample.json', history: 'history.json' } as const;

const Json = z.unknown();

/** One tool call as the sample keeps it: what was asked and what came back, redacted. */
export const SampleInvocationSchema = z.strictObject({
  seq: z.number().int(),
  tool: z.string(),
  version: z.string(),
  effect: z.string(),
  attempts: z.number().int(),
  args: Json,
  status: z.string().nullable(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  output: Json,
  externalId: z.string().nullable(),
  artifactIds: z.array(z.string()),
});
export type SampleInvocation = z.infer<typeof SampleInvocationSchema>;

/**
 * `sample.json` of an exported failure sample: the stored failure, the versions the run pinned
 * (with the `patched()` ids its history recorded), the inputs that decide what it does (its start
 * input and the signals it took), its tool calls and artifacts, and its events as the public
 * projection shows them. Everything but the history is redacted by the public projection's rules.
 */
export const FailureSampleSchema = z.strictObject({
  format: z.literal(FAILURE_SAMPLE_FORMAT),
  failure: FailureSampleRecordSchema,
  versions: z.strictObject({
    profile: z.string(),
    policy: z.string(),
    toolRegistryDigest: z.string(),
    modelRoute: z.string(),
    configDigest: z.string(),
    /** `patched()` ids the recorded run took (its history's patch markers), in order. */
    patches: z.array(z.string()),
    /**
     * The marker-free start its memo asked for (`v3`, docs/history-cost.md "The third baseline"):
     * such a run records no baseline marker, so `patches` alone does not say which code it took.
     */
    baseline: z.string().optional(),
    workflowType: z.string(),
    taskQueue: z.string(),
  }),
  inputs: z.strictObject({
    /** The workflow's start input (the run input: task, profile, policy, budget…), redacted. */
    start: Json,
    /** Signals in the order the run took them (names and redacted arguments; decision tokens removed). */
    signals: z.array(z.strictObject({ name: z.string(), args: Json })),
    /** Updates the run accepted (names and redacted arguments). */
    updates: z.array(z.strictObject({ name: z.string(), args: Json })),
    startedAt: z.string(),
  }),
  invocations: z.array(SampleInvocationSchema),
  artifacts: z.array(
    z.strictObject({ id: z.string(), type: z.string(), provenance: z.string(), data: Json }),
  ),
  events: z.strictObject({
    events: z.array(z.record(z.string(), z.unknown())),
    omittedSequences: z.array(z.number()),
    appliedObligations: z.array(z.string()),
  }),
  /** The history file's payloads are encoded with the codec of the deployment (replay needs its keys). */
  historyEncoded: z.boolean(),
});
export type FailureSample = z.infer<typeof FailureSampleSchema>;
