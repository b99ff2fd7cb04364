import { z } from 'zod';
import type { Artifact } from './artifact.js';
import { ToolEffectSchema } from './tool.js';

/** Largest integer a sequence, attempt or index column holds (32-bit signed, both backends). */
export const MAX_SEQ = 2_147_483_647;
/** Bound of an intent's `args`, canonical JSON bytes. */
export const MAX_INTENT_ARGS_BYTES = 64 * 1024;
/** Bound of any other stored JSON record (result, message group, event, delta), canonical JSON bytes. */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Bound of one blob, canonical JSON bytes. */
export const MAX_BLOB_BYTES = 64 * 1024 * 1024;

const Id = z.string().min(1).max(200);
const Seq = z.number().int().min(0).max(MAX_SEQ);
const Attempt = z.number().int().min(1).max(MAX_SEQ);
const IsoTime = z.iso.datetime({ offset: true });
const JsonObject = z.record(z.string(), z.unknown());

/**
 * Written before a tool's executor runs. Key: (runId, seq, attempt). `recordedAt` is metadata: two
 * intents that differ only in `recordedAt` are the same intent.
 */
export const InvocationIntentSchema = z.strictObject({
  runId: Id,
  seq: Seq,
  attempt: Attempt,
  tool: Id,
  version: z.string().min(1).max(50),
  effect: ToolEffectSchema,
  argsDigest: z.string().min(1).max(200),
  /** Bounded by {@link MAX_INTENT_ARGS_BYTES}. */
  args: JsonObject,
  idempotencyKey: z.string().min(1).max(400),
  workerIdentity: z.string().min(1).max(400),
  recordedAt: IsoTime,
});
export type InvocationIntent = z.infer<typeof InvocationIntentSchema>;

export const InvocationResultStatusSchema = z.enum([
  'succeeded',
  'failed_terminal',
  'failed_retryable',
  'interrupted',
  'not_applied',
]);
export type InvocationResultStatus = z.infer<typeof InvocationResultStatusSchema>;

/** Who wrote a result: the executor that ran the tool, a connector's reconciler, or an operator. */
export const ResultSourceSchema = z.enum(['executor', 'reconciler', 'operator']);
export type ResultSource = z.infer<typeof ResultSourceSchema>;

/**
 * The outcome of one invocation attempt. Key: (runId, seq, attempt); at most one per attempt, the
 * first one recorded wins. `recordedAt` is metadata and not part of the identity.
 */
export const InvocationResultSchema = z.strictObject({
  runId: Id,
  seq: Seq,
  attempt: Attempt,
  status: InvocationResultStatusSchema,
  output: JsonObject.optional(),
  errorCode: z.string().min(1).max(200).optional(),
  errorMessage: z.string().max(4000).optional(),
  externalId: z.string().min(1).max(400).optional(),
  /** Ids of the artifacts recorded with this result (or already stored before it). */
  artifactIds: z.array(Id),
  recordedAt: IsoTime,
  source: ResultSourceSchema,
  /** What a reconciler or operator based its decision on (JSON). Required for resolutions. */
  evidence: z.unknown().optional(),
});
export type InvocationResult = z.infer<typeof InvocationResultSchema>;

/**
 * A reconciler's or operator's decision on an invocation whose outcome was unknown: a result whose
 * source is not the executor and which carries the evidence it was decided on.
 */
export type InvocationResolution = InvocationResult & {
  source: 'reconciler' | 'operator';
  evidence: unknown;
};

/**
 * Everything recorded for one invocation sequence number. `intents` and `results` are ordered by
 * attempt. `result` is the result of the latest attempt (highest attempt with an intent), if that
 * attempt has one: an intent without a result there means the outcome of the current attempt is
 * unknown.
 */
export interface InvocationRecord {
  readonly runId: string;
  readonly seq: number;
  readonly intents: InvocationIntent[];
  readonly results: InvocationResult[];
  readonly result?: InvocationResult;
}

/** An artifact as stored: the domain artifact plus where it belongs and the digest of its data. */
export type StoredArtifact = Artifact & {
  readonly runId: string;
  /** Invocation (or model call) sequence number; null for artifacts outside any sequence. */
  readonly seq: number | null;
  /** Invocation attempt for artifacts recorded with a result; null otherwise. */
  readonly attempt: number | null;
  /** `sha256:` digest of the canonical JSON of `data`; the reference's digest when data is by reference. */
  readonly digest: string;
  readonly recordedAt: string;
};

/** Input of `putArtifact`: a model-provenance artifact recorded outside any tool result. */
export const ModelArtifactInputSchema = z.strictObject({
  runId: Id,
  seq: Seq.optional(),
  artifact: z.unknown(),
  recordedAt: IsoTime,
});
export interface ModelArtifactInput {
  readonly runId: string;
  readonly seq?: number;
  readonly artifact: Artifact;
  readonly recordedAt: string;
}

/** One group of model messages, keyed by (runId, seq). */
export interface MessageGroup {
  readonly runId: string;
  readonly seq: number;
  readonly messages: unknown[];
}

/** A run event as stored; `envelope` is the whole event as emitted. Key: (runId, seq); eventId unique. */
export const StoredEventSchema = z.strictObject({
  runId: Id,
  seq: Seq,
  eventId: Id,
  type: z.string().min(1).max(200),
  occurredAt: IsoTime,
  data: JsonObject,
  envelope: JsonObject,
});
export type StoredEvent = z.infer<typeof StoredEventSchema>;

/** One piece of a live model stream, keyed by (runId, callId, index). */
export const ModelDeltaSchema = z.strictObject({
  index: Seq,
  type: z.string().min(1).max(200),
  data: z.unknown(),
});
export type ModelDelta = z.infer<typeof ModelDeltaSchema>;

/** A content-addressed blob: `ref` is `blob://sha256:<hex>`, `digest` is `sha256:<hex>`. */
export interface BlobRef {
  readonly ref: string;
  readonly digest: string;
}

export const RunIdSchema = Id;
export const SeqSchema = Seq;
export const CallIdSchema = Id;
