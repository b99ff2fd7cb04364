import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { decodeHistoryPayloads } from '../../codec/history-payloads.js';
import { MARKER_FREE_START, MARKER_FREE_START_MEMO_KEY } from '../../contract/visibility.js';
import type { EvidenceStore, FailureSampleRecord } from '../../worker/store/index.js';
import { FailureSampleRecordSchema } from '../../worker/store/index.js';
import {
  envelopesOf,
  projectPublic,
  projectPublicValue,
  runObligations,
  type PublicProjection,
} from '../evidence/public-projection.js';
import { scrubSecrets } from './scrub-secrets.js';
import { readAllEvents } from '../evidence/read-all-events.js';

type History = temporal.api.history.v1.IHistory;

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

const PATCH_MARKER = 'core_patch';

function fromPayload(p: Payload | null | undefined): unknown {
  if (!p) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(p);
  } catch {
    return undefined; // an encoded payload without the codec's keys: not readable here
  }
}

/** The marker-free start a run's start memo asked for, as the sample's `baseline`. */
function markerFreeStartOf(started: { memo?: { fields?: Record<string, Payload> | null } | null }): {
  baseline?: string;
} {
  const value = fromPayload(started.memo?.fields?.[MARKER_FREE_START_MEMO_KEY]);
  // Only the value the workflow acts on: a run started with another value recorded its marker.
  return value === MARKER_FREE_START ? { baseline: value } : {};
}

/** `patched()` ids a history recorded (its patch markers), first occurrence order. */
export function patchIdsOf(history: History): string[] {
  const ids: string[] = [];
  for (const e of history.events ?? []) {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== PATCH_MARKER) continue;
    // Core writes `patch-data` as `{ id, deprecated }`.
    const data = fromPayload(m.details?.['patch-data']?.payloads?.[0]) as { id?: unknown } | undefined;
    if (typeof data?.id === 'string' && !ids.includes(data.id)) ids.push(data.id);
  }
  return ids;
}

function timeOf(t: temporal.api.history.v1.IHistoryEvent['eventTime']): string {
  const seconds = Number(t?.seconds ?? 0);
  return new Date(seconds * 1000 + Math.floor((t?.nanos ?? 0) / 1e6)).toISOString();
}

/**
 * How the recorded run ended, as the history's last event says: the `agentRun` result's status and
 * terminal code (a run that ends badly still completes its workflow; its status says how).
 * Undefined when the history has no readable end (still open, or encoded without the keys).
 */
export function recordedEndOf(history: History): { status: string; code: string | null } | undefined {
  const last = history.events?.at(-1);
  const done = last?.workflowExecutionCompletedEventAttributes;
  if (!done) return undefined;
  const result = fromPayload(done.result?.payloads?.[0]) as
    { status?: unknown; terminalReason?: { code?: unknown } | null } | undefined;
  if (typeof result?.status !== 'string') return undefined;
  const code = result.terminalReason?.code;
  return { status: result.status, code: typeof code === 'string' ? code : null };
}

export interface BuildFailureSampleInput {
  readonly failure: FailureSampleRecord;
  /** The run's history as Temporal holds it (encoded payloads stay encoded in the sample). */
  readonly history: History;
  readonly store: EvidenceStore;
  /** The deployment's payload codec, to read an encoded history's inputs (never written decoded). */
  readonly codec?: PayloadCodec;
}

/**
 * Build a run's failure sample from its stored failure, its history and its evidence (events,
 * invocations, artifacts). Redaction: every value but the history goes through the public projection
 * (`projectPublicValue` / `projectPublic` with the run's obligations): secrets and payment data are
 * removed, contact data is replaced, phone numbers are masked when the run's policy asked for it.
 * @throws the store's errors; Error when the history has no start event.
 */
export async function buildFailureSample(i: BuildFailureSampleInput): Promise<FailureSample> {
  const runId = i.failure.runId;
  const stored = await readAllEvents(i.store, runId);
  const obligations = runObligations(stored.map((e) => ({ type: e.type, data: e.data })));
  const redact = (v: unknown): unknown => scrubSecrets(projectPublicValue(v ?? null, { obligations }));
  const plain = i.codec ? await decodeHistoryPayloads(i.history, i.codec) : i.history;
  const first = plain.events?.[0];
  const started = first?.workflowExecutionStartedEventAttributes;
  if (!first || !started) throw new Error(`the history of ${runId} has no start event`);
  const signals: { name: string; args: unknown }[] = [];
  const updates: { name: string; args: unknown }[] = [];
  for (const e of plain.events ?? []) {
    const s = e.workflowExecutionSignaledEventAttributes;
    if (s) signals.push({ name: s.signalName ?? '', args: redact(fromPayload(s.input?.payloads?.[0])) });
    const u = e.workflowExecutionUpdateAcceptedEventAttributes;
    if (u)
      updates.push({
        name: u.acceptedRequest?.input?.name ?? '',
        args: redact(fromPayload(u.acceptedRequest?.input?.args?.payloads?.[0])),
      });
  }
  const invocations = (await i.store.listInvocations(runId)).map((r): SampleInvocation => {
    const first = r.intents[0];
    return {
      seq: r.seq,
      tool: first?.tool ?? '',
      version: first?.version ?? '',
      effect: first?.effect ?? '',
      attempts: r.intents.length,
      args: redact(first?.args),
      status: r.result?.status ?? null,
      errorCode: r.result?.errorCode ?? null,
      errorMessage: r.result?.errorMessage ?? null,
      output: redact(r.result?.output),
      externalId: r.result?.externalId ?? null,
      artifactIds: [...(r.result?.artifactIds ?? [])],
    };
  });
  const artifacts = (await i.store.listArtifacts(runId)).map((a) => ({
    id: a.id,
    type: a.type,
    provenance: a.provenance,
    data: redact(a.data),
  }));
  const events: PublicProjection = projectPublic(envelopesOf(stored), { obligations });
  return FailureSampleSchema.parse({
    format: FAILURE_SAMPLE_FORMAT,
    failure: { ...i.failure, message: String(redact(i.failure.message)) },
    versions: {
      ...i.failure.versions,
      patches: patchIdsOf(plain),
      ...markerFreeStartOf(started),
      workflowType: started.workflowType?.name ?? '',
      taskQueue: started.taskQueue?.name ?? '',
    },
    inputs: {
      start: redact(fromPayload(started.input?.payloads?.[0])),
      signals,
      updates,
      startedAt: timeOf(first.eventTime),
    },
    invocations,
    artifacts,
    events: scrubSecrets(JSON.parse(JSON.stringify(events))),
    historyEncoded: i.codec !== undefined,
  });
}
