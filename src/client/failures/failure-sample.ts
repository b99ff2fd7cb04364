import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { decodeHistoryPayloads } from '../../codec/history-payloads.js';
import { MARKER_FREE_START, MARKER_FREE_START_MEMO_KEY } from '../../contract/visibility.js';
import type { EvidenceStore } from '../../contract/evidence-store.js';
import type { FailureSampleRecord } from '../../contract/failure-sample-record.js';
import {
  FAILURE_SAMPLE_FORMAT,
  FailureSampleSchema,
  type FailureSample,
  type SampleInvocation,
} from '../../contract/failure-sample.js';

export {
  FAILURE_SAMPLE_FILES,
  FAILURE_SAMPLE_FORMAT,
  FailureSampleSchema,
  SampleInvocationSchema,
  type FailureSample,
  type SampleInvocation,
} from '../../contract/failure-sample.js';
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
