import { z } from 'zod';

/**
 * Normalized outcome of one tool invocation, as the model and the runner see it (bounded). Built on
 * first use (see builtOnFirstUse).
 */
export const ObservationStatusSchema = z.lazy(() =>
  z.enum(['succeeded', 'rejected', 'failed_retryable', 'failed_terminal', 'outcome_unknown', 'interrupted']),
);
export type ObservationStatus = z.infer<typeof ObservationStatusSchema>;

/** Built on first use (see builtOnFirstUse). */
export const ObservationSchema = z.lazy(() =>
  z.object({
    toolCallId: z.string(),
    seq: z.number().int().nonnegative(),
    toolName: z.string(),
    toolVersion: z.string(),
    status: ObservationStatusSchema,
    /** Bounded output the model may read (JSON). */
    output: z.record(z.string(), z.unknown()).optional(),
    /** Ids of artifacts recorded with the result. */
    artifactIds: z.array(z.string()).default([]),
    errorCode: z.string().nullable().default(null),
    errorMessage: z.string().nullable().default(null),
    externalId: z.string().optional(),
    /** `invocation://<runId>/<seq>` when the result is in the evidence store (the model reads it from there). */
    resultRef: z.string().optional(),
    startedAt: z.string(),
    finishedAt: z.string(),
  }),
);
export type Observation = z.infer<typeof ObservationSchema>;
