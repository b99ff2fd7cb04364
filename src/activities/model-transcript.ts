/**
 * A run's transcript as the model activity reads it: the message groups stored by earlier calls
 * (one per call number: what the call added, its context package ref, and what the model answered),
 * with the tool results they reference resolved.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ModelDecision, ModelMessageInput } from '../contract/step-io.js';
import { observationText } from '../contract/observation-text.js';
import type { ContextPackage } from './context/types.js';
import { itemToMessage, type TranscriptGroup, type TurnMemo } from './context/request-package.js';
import { inputItem } from './context/transcript-items.js';
import { carriesVerifiedArtifact } from './context/verified-results.js';
import type { ModelMessage, ModelUsage } from './model/types.js';
import { StoreError, type EvidenceStore } from './store/index.js';
import type { TranscriptCache } from './transcript-cache.js';
import { versionedName } from '../contract/versioned-name.js';

/** One stored message group: what the call added, its context package ref, and what the model answered. */
export interface MessageGroupBody {
  readonly input: readonly ModelMessageInput[];
  readonly context?: ContextRef;
  readonly output: Omit<ModelDecision, 'replayed'>;
}

/** Where the context package of a call is stored (the history carries only this reference). */
export interface ContextRef {
  readonly packageId: string;
  readonly ref: string;
  readonly digest: string;
  readonly totalTokens: number;
  readonly omitted: readonly string[];
  /** The oldest turns, left out together (the package's `omittedTurns`). */
  readonly omittedTurns?: ContextPackage['omittedTurns'];
  /** Summarize calls this call made, and their usage (included in the group's `output.usage`). */
  readonly summaries?: { readonly calls: number; readonly usage: ModelUsage; readonly costUsd: number };
}

/**
 * Replace references (`resultOf`) by the stored invocation results, rendered exactly as the workflow
 * would render the observation. The request carried only the reference. With `markVerified` (runs
 * whose calls ask `contextOrder: 'priority'`), a result that carries a verified artifact gets trust
 * `verified` ({@link carriesVerifiedArtifact}); any other keeps the trust the runner gave it.
 * @throws ApplicationFailure `model.reference_missing` (non-retryable) when a referenced result is not stored.
 */
export async function resolveReferences(
  store: EvidenceStore,
  runId: string,
  messages: readonly ModelMessageInput[],
  markVerified = false,
): Promise<ModelMessageInput[]> {
  const out: ModelMessageInput[] = [];
  for (const m of messages) {
    if (m.resultOf === undefined) {
      out.push(m);
      continue;
    }
    const record = await store.getInvocation(runId, m.resultOf);
    const result = record?.result;
    const intent = record?.intents[0];
    if (!result || !intent) {
      throw ApplicationFailure.create({
        type: 'model.reference_missing',
        nonRetryable: true,
        message: `invocation ${m.resultOf} of ${runId} has no stored result to show the model`,
      });
    }
    const verified =
      markVerified && (await carriesVerifiedArtifact(store, runId, m.resultOf, result.artifactIds));
    out.push({
      ...m,
      ...(verified ? { trust: 'verified' as const } : {}),
      content: observationText({
        status: result.status === 'succeeded' ? 'succeeded' : 'failed_terminal',
        tool: versionedName(intent.tool, intent.version),
        seq: m.resultOf,
        output: result.output,
        artifactIds: result.artifactIds,
        errorCode: result.errorCode ?? null,
        errorMessage: result.errorMessage ?? null,
      }),
    });
  }
  return out;
}

/** The provider messages of one call's new messages, each as the request package sends it (no notice). */
export function toProviderMessages(
  runId: string,
  callSeq: number,
  input: readonly ModelMessageInput[],
): ModelMessage[] {
  return input.map((m, i) => itemToMessage(inputItem(runId, callSeq, i, m, false)));
}

/** The transcript before one call, or the call's own group when it was answered already. */
export interface Transcript {
  /** The call's own stored group (then `groups` is empty). */
  readonly answered?: MessageGroupBody;
  readonly groups: readonly TranscriptGroup[];
  /** The summaries of older observations made so far (by context item id), and the turns measured. */
  readonly summaries: ReadonlyMap<string, string>;
  readonly memo?: TurnMemo;
}

/**
 * The groups before call `callSeq` of `runId` (references resolved), or the stored group of
 * `callSeq` itself when the call was answered already. Reads from the store only the groups after
 * those `transcripts` holds for the run, so a run's calls do not read the whole transcript each time.
 * `markVerified` as {@link resolveReferences} (one run asks the same way on every call, so the cached
 * groups were resolved the same way).
 * @throws ApplicationFailure `model.reference_missing` as {@link resolveReferences}; store errors as thrown.
 */
export async function loadTranscript(
  store: EvidenceStore,
  transcripts: TranscriptCache,
  runId: string,
  callSeq: number,
  markVerified = false,
): Promise<Transcript> {
  const cached = transcripts.get(runId);
  const base = cached && cached.throughSeq < callSeq ? cached : undefined;
  const stored = await store.listMessageGroups(runId, {
    ...(base ? { fromSeq: base.throughSeq + 1 } : {}),
    toSeq: callSeq,
  });
  const same = stored.find((g) => g.seq === callSeq);
  if (same) return { answered: same.messages[0] as MessageGroupBody, groups: [], summaries: new Map() };
  const groups: TranscriptGroup[] = base ? [...base.groups] : [];
  for (const g of stored) {
    const body = g.messages[0] as MessageGroupBody;
    const input = await resolveReferences(store, runId, body.input, markVerified);
    groups.push({
      seq: g.seq,
      input,
      output: {
        text: body.output.text,
        toolCalls: body.output.toolCalls.map((c) => ({
          id: c.id,
          name: c.name,
          version: c.version,
          args: (c.args ?? {}) as Record<string, unknown>,
        })),
      },
    });
  }
  return { groups, summaries: base?.summaries ?? new Map(), ...(base?.memo ? { memo: base.memo } : {}) };
}

/**
 * The stored answer of call `callSeq` when `err` is the store's conflict on its message group (an
 * earlier attempt stored a different body first); undefined for any other error.
 * @throws the store's errors while reading it.
 */
export async function firstAnswer(
  err: unknown,
  store: EvidenceStore,
  runId: string,
  callSeq: number,
): Promise<MessageGroupBody | undefined> {
  if (!(err instanceof StoreError) || err.code !== 'store.conflict') return undefined;
  const [group] = await store.listMessageGroups(runId, { fromSeq: callSeq, toSeq: callSeq });
  return group?.messages[0] as MessageGroupBody | undefined;
}
