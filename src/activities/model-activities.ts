import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { isHarnessError } from '../contract/errors.js';
import { checkInput } from '../workflows/index.js';
import { ContextError } from './context/errors.js';
import { storeRequestPackage } from './context/package-store.js';
import { DATA_NOTICE, renderDataBlock } from './context/render.js';
import {
  NO_SUMMARY,
  inputItem,
  itemToMessage,
  planRequest,
  summaryArtifactId,
  type RequestPackageInput,
  type RequestPackagePlan,
  type TranscriptGroup,
  type TurnMemo,
} from './context/request-package.js';
import { TOKENS_PER_MESSAGE, countWith, type TokenizerName } from './context/tokenizer.js';
import type { ContextItem, ContextPackage } from './context/types.js';
import type { ModelEvent } from './model/events.js';
import { toApplicationFailure } from './model/to-application-failure.js';
import type { ModelMessage, ModelToolSpec, ModelUsage } from './model/types.js';
import type { ToolRegistry } from '../registry/index.js';
import type { ModelDecision, ModelMessageInput, ToolOutputFinding } from '../contract/step-io.js';
import type {
  AnyModelCallActivityInput,
  ModelActivities,
  ModelCallActivityInputV2,
} from '../contract/activity-interfaces.js';
import { observationText } from '../contract/observation-text.js';
import { StoreError, type EvidenceStore } from './store/index.js';
import type { ModelRouter, ResolvedRoute } from './model-router.js';
import { completeModelInput, type CompactModelInput } from '../contract/compact-step-input.js';
import { modelCallDerivation } from '../contract/packed-events-by-ref.js';
import { callingWorkflowId } from './calling-workflow-id.js';
import { eventsOf } from './store-events.js';
import { TranscriptCache } from './transcript-cache.js';

export interface ModelActivityDeps {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly models: ModelRouter;
  /** The transcripts built by earlier calls (default: a new cache per {@link createModelActivities}). */
  readonly transcripts?: TranscriptCache;
}

/** One stored message group: what the call added, its context package ref, and what the model answered. */
interface MessageGroupBody {
  readonly input: readonly ModelMessageInput[];
  readonly context?: ContextRef;
  readonly output: Omit<ModelDecision, 'replayed'>;
}

/** Where the context package of a call is stored (the history carries only this reference). */
interface ContextRef {
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

const DELTA_FLUSH_EVERY = 16;

/** The policy version of request packages (docs/context.md, "The request is the package"). */
export const CONTEXT_POLICY_VERSION = 'context/v3';
/** The output reserve of a route without `maxOutputTokens`: this, or a quarter of its window if less. */
export const DEFAULT_OUTPUT_RESERVE = 4_096;

/**
 * The largest model answer a run takes: its text in characters, and the whole decision (text and
 * tool calls) in UTF-8 bytes of JSON. Above either, the call fails `model.output_too_large`
 * (non-retryable: the same request would be answered alike) and the run ends with that code: the
 * answer would otherwise sit in workflow state and the next activity's input, toward Temporal's 2 MB
 * payload limit, and the message group over the evidence store's 1 MiB record bound. Well above
 * what one check of the output guardrail reads (65,536 characters, which blocks longer answers).
 */
export const MAX_MODEL_TEXT_CHARS = 262_144;
export const MAX_MODEL_DECISION_BYTES = 524_288;
/**
 * The streamed deltas of one call are stored until the answer reaches this many UTF-8 bytes; the rest
 * of a longer answer is not (the completed event repeats it whole, and one stored record is at most
 * 1 MiB). The call's message group keeps the whole answer that was taken.
 */
const MAX_STORED_DELTA_BYTES = 262_144;

/** @throws ApplicationFailure `model.output_too_large` (non-retryable) when the answer is over its bounds. */
function assertAnswerBounded(decision: Omit<ModelDecision, 'replayed'>): void {
  const text = decision.text.length;
  const whole = text > MAX_MODEL_TEXT_CHARS ? text : Buffer.byteLength(JSON.stringify(decision));
  if (text <= MAX_MODEL_TEXT_CHARS && whole <= MAX_MODEL_DECISION_BYTES) return;
  throw ApplicationFailure.create({
    type: 'model.output_too_large',
    nonRetryable: true,
    message: `the model answered ${text} characters of text and ${decision.toolCalls.length} tool calls (${whole} bytes as JSON); the bounds are ${MAX_MODEL_TEXT_CHARS} characters and ${MAX_MODEL_DECISION_BYTES} bytes`,
  });
}
/**
 * The route version a call names, on this worker.
 * @throws ApplicationFailure `model.unknown_route` or `model.route_changed` (non-retryable, see
 *   {@link ModelRouter.resolve}).
 */
function resolveRoute(models: ModelRouter, route: string, digest: string | undefined): ResolvedRoute {
  try {
    return models.resolve(route, digest);
  } catch (err) {
    if (isHarnessError(err))
      throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
    throw err;
  }
}

/**
 * Replace references (`resultOf`) by the stored invocation results, rendered exactly as the workflow
 * would render the observation. The request carried only the reference.
 * @throws ApplicationFailure `model.reference_missing` (non-retryable) when a referenced result is not stored.
 */
export async function resolveReferences(
  store: EvidenceStore,
  runId: string,
  messages: readonly ModelMessageInput[],
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
    out.push({
      ...m,
      content: observationText({
        status: result.status === 'succeeded' ? 'succeeded' : 'failed_terminal',
        tool: `${intent.tool}@${intent.version}`,
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

/**
 * The groups before call `callSeq` of `runId` (references resolved), or the stored group of
 * `callSeq` itself when the call was answered already. Reads from the store only the groups after
 * those `transcripts` holds for the run, so a run's calls do not read the whole transcript each time.
 * @throws ApplicationFailure `model.reference_missing` as {@link resolveReferences}; store errors as thrown.
 */
async function loadTranscript(
  store: EvidenceStore,
  transcripts: TranscriptCache,
  runId: string,
  callSeq: number,
): Promise<{
  readonly answered?: MessageGroupBody;
  readonly groups: readonly TranscriptGroup[];
  readonly summaries: ReadonlyMap<string, string>;
  readonly memo?: TurnMemo;
}> {
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
    const input = await resolveReferences(store, runId, body.input);
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

/** Summaries the context builder asks for in one call at most; older observations beyond wait for the next call. */
export const MAX_NEW_SUMMARIES_PER_CALL = 8;
/** Most characters of an observation a summarize request carries. */
const MAX_SUMMARIZED_CHARS = 24_000;
/** The most tokens a summary answer may have. */
const SUMMARY_OUTPUT_TOKENS = 120;

/** The instructions of a summarize call (harness text, the system message). */
export const SUMMARIZE_INSTRUCTIONS =
  'Summarise the tool observation in the data block in at most two short sentences: what was called, ' +
  'whether it succeeded, and the key values (ids, statuses, amounts). Report only what the block says. ' +
  DATA_NOTICE;

/** Tokens counted per (tokenizer, text), kept across calls: a run's items are counted once. */
class TokenMemo {
  private readonly counts = new Map<string, number>();
  /** Characters held in keys: the memo is emptied above {@link TokenMemo.MAX_CHARS} (about 32 MB). */
  private chars = 0;
  private static readonly MAX_CHARS = 16_000_000;
  counter(tokenizer: TokenizerName): (text: string) => number {
    return (text) => {
      const key = `${tokenizer}\u0000${text}`;
      let n = this.counts.get(key);
      if (n === undefined) {
        n = countWith(tokenizer, text);
        if (this.chars + key.length > TokenMemo.MAX_CHARS) {
          this.counts.clear();
          this.chars = 0;
        }
        this.counts.set(key, n);
        this.chars += key.length;
      }
      return n;
    };
  }
}

/**
 * Tool output scanned by the input guardrail like user input (default configuration), memoised by
 * item id (an item's content never changes). Only the verdict and reason codes are kept.
 */
class ToolOutputScanner {
  private readonly seen = new Map<string, ContextItem['guardrail'] | null>();
  scan = (item: ContextItem): ContextItem['guardrail'] => {
    let found = this.seen.get(item.itemId);
    if (found === undefined) {
      const r = checkInput(item.content);
      found = r.verdict === 'pass' ? null : { verdict: r.verdict, reasonCodes: [...r.reasonCodes] };
      if (this.seen.size >= 100_000) this.seen.clear();
      this.seen.set(item.itemId, found);
    }
    return found ?? undefined;
  };
}

/**
 * The stored answer of call `callSeq` when `err` is the store's conflict on its message group (an
 * earlier attempt stored a different body first); undefined for any other error.
 * @throws the store's errors while reading it.
 */
async function firstAnswer(
  err: unknown,
  store: EvidenceStore,
  runId: string,
  callSeq: number,
): Promise<MessageGroupBody | undefined> {
  if (!(err instanceof StoreError) || err.code !== 'store.conflict') return undefined;
  const [group] = await store.listMessageGroups(runId, { fromSeq: callSeq, toSeq: callSeq });
  return group?.messages[0] as MessageGroupBody | undefined;
}

/** Most tool output findings one model call reports (the package keeps every one). */
const MAX_TOOL_OUTPUT_FINDINGS = 20;

/**
 * The flagged tool results among this call's own new messages (each result is new in exactly one
 * call, so each finding is reported once), for the run's `guardrail.tool_output_flagged` event.
 */
function toolOutputFindingsOf(
  pkg: ContextPackage,
  runId: string,
  callSeq: number,
): { toolOutputFindings?: ToolOutputFinding[] } {
  const own = `${runId}:m${callSeq}:`;
  const found = pkg.items
    .filter((i) => i.kind === 'tool_fact' && i.guardrail !== undefined && i.itemId.startsWith(own))
    .slice(0, MAX_TOOL_OUTPUT_FINDINGS)
    .map((i) => ({
      sourceRef: i.sourceRef,
      verdict: i.guardrail!.verdict,
      reasonCodes: [...i.guardrail!.reasonCodes],
    }));
  return found.length > 0 ? { toolOutputFindings: found } : {};
}

/** A ContextError is deterministic: the call fails for good with its code. */
function contextFailure(err: unknown): never {
  if (err instanceof ContextError)
    throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
  throw err;
}

/**
 * The model activity: loads earlier message groups from the evidence store (history carries only
 * references; a worker keeps the transcripts it built, see {@link TranscriptCache}), streams the provider's answer with deltas to the store (live, outside history), stores
 * the new group idempotently by (run, call number) and returns a compact decision. A retry after a
 * completed call returns the stored answer, so usage is counted once.
 */
export function createModelActivities(deps: ModelActivityDeps): ModelActivities {
  const { registry, store, models } = deps;
  const transcripts = deps.transcripts ?? new TranscriptCache();
  const memo = new TokenMemo();
  const scanner = new ToolOutputScanner();

  /**
   * The summary of tool item `item`: the stored model artifact when there is one, else a call of
   * purpose `summarize` on the run's summarize route (stored as a model artifact, trust never
   * `verified`). Undefined when no summary could be made (over {@link MAX_NEW_SUMMARIES_PER_CALL} in
   * this call, or the summarize call failed): the request then sends the reference alone. Only a
   * cancellation is thrown.
   */
  async function summarize(
    input: AnyModelCallActivityInput,
    item: ContextItem,
    made: { calls: number; usage: { inputTokens: number; outputTokens: number }; costUsd: number },
  ): Promise<string | undefined> {
    const id = summaryArtifactId(item.itemId);
    const stored = await store.getArtifact(id);
    const storedText = (stored?.data as { text?: unknown } | undefined)?.text;
    if (typeof storedText === 'string') return storedText;
    if (made.calls >= MAX_NEW_SUMMARIES_PER_CALL) return undefined;
    const ctx = Context.current();
    const routeName = input.summarizeRoute?.route ?? input.modelRoute;
    const digest = input.summarizeRoute ? input.summarizeRoute.digest : input.routeDigest;
    made.calls += 1;
    try {
      const route = resolveRoute(models, routeName, digest);
      const block = renderDataBlock({ ...item, content: item.content.slice(0, MAX_SUMMARIZED_CHARS) });
      const out = await route.provider.stream(
        {
          callId: `${input.runId}:m${input.callSeq}:summary:${made.calls}:a${ctx.info.attempt}`,
          purpose: 'summarize',
          model: route.model,
          messages: [
            { role: 'system', content: SUMMARIZE_INSTRUCTIONS },
            { role: 'user', content: block },
          ],
          maxOutputTokens: SUMMARY_OUTPUT_TOKENS,
        },
        { signal: ctx.cancellationSignal, onEvent: () => undefined },
      );
      made.usage.inputTokens += out.usage.inputTokens;
      made.usage.outputTokens += out.usage.outputTokens;
      made.costUsd += out.costUsd;
      const text = out.text.trim();
      if (text === '') return undefined;
      await store.putArtifact({
        runId: input.runId,
        seq: input.callSeq,
        artifact: {
          id,
          type: 'context.summary',
          schemaVersion: '1',
          provenance: 'model',
          data: { text, of: item.itemId, sourceRef: item.sourceRef, route: routeName },
        },
        recordedAt: new Date().toISOString(),
      });
      return text;
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err;
      return undefined;
    }
  }

  const callModel = async (input: AnyModelCallActivityInput): Promise<ModelDecision> => {
    // The run's events go in the transaction of the request package. An attempt that ends before it
    // stores them only when it answers: the run sends a failed call's events again (Runner.model).
    const events = await eventsOf(store, input.events, {
      derive: modelCallDerivation(input),
      runId: input.runId,
    });
    const transcript = await loadTranscript(store, transcripts, input.runId, input.callSeq);
    if (transcript.answered) {
      await store.appendEvents(events);
      return { ...transcript.answered.output, replayed: true };
    }
    const newMessages = await resolveReferences(store, input.runId, input.newMessages);
    const tools: ModelToolSpec[] = input.toolKeys.map((key) => {
      const at = key.lastIndexOf('@');
      const { definition } = registry.get(key.slice(0, at), key.slice(at + 1));
      return {
        name: definition.name,
        version: definition.version,
        description: definition.description,
        parameters: definition.parameters,
      };
    });
    const route = resolveRoute(models, input.modelRoute, input.routeDigest);
    const count = memo.counter(route.tokenizer);
    const outputReserve =
      route.maxOutputTokens ?? Math.min(DEFAULT_OUTPUT_RESERVE, Math.floor(route.contextWindow / 4));
    const requestOverhead =
      (tools.length > 0 ? count(JSON.stringify(tools)) + tools.length * TOKENS_PER_MESSAGE : 0) +
      (input.outputSchema ? count(JSON.stringify(input.outputSchema)) : 0);
    const summaries = new Map(transcript.summaries);
    const turns: TurnMemo = transcript.memo ?? { tokenizer: route.tokenizer, turns: new Map() };
    const planInput: RequestPackageInput = {
      runId: input.runId,
      callSeq: input.callSeq,
      groups: transcript.groups,
      newMessages,
      budget: {
        contextWindow: route.contextWindow,
        outputReserve,
        requestOverhead,
        tokenizer: route.tokenizer,
      },
      route: input.modelRoute,
      now: new Date().toISOString(),
      policyVersion: CONTEXT_POLICY_VERSION,
      summaries,
      count,
      scan: scanner.scan,
      memo: turns,
    };
    let plan: RequestPackagePlan;
    try {
      plan = planRequest(planInput);
    } catch (err) {
      contextFailure(err);
    }
    const made = { calls: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
    if (plan.wanted.length > 0) {
      const sent = new Map(summaries);
      for (const item of plan.wanted) {
        const got = await summarize(input, item, made);
        sent.set(item.itemId, got ?? NO_SUMMARY);
        if (got !== undefined) summaries.set(item.itemId, got);
      }
      try {
        plan = planRequest({ ...planInput, summaries: sent });
      } catch (err) {
        contextFailure(err);
      }
    }
    transcripts.set(input.runId, {
      throughSeq: input.callSeq - 1,
      groups: transcript.groups,
      summaries,
      memo: turns,
    });
    const pkg = plan.pkg;
    const messages = plan.messages;
    const blob = await storeRequestPackage(store, pkg, plan.turnOf, events);
    const context: ContextRef = {
      packageId: pkg.packageId,
      ref: blob.ref,
      digest: blob.digest,
      totalTokens: pkg.totalTokenEstimate,
      omitted: pkg.omittedItemRefs,
      ...(pkg.omittedTurns ? { omittedTurns: pkg.omittedTurns } : {}),
      ...(made.calls > 0 ? { summaries: made } : {}),
    };
    const ctx = Context.current();
    // A fallback is another call of the same number: its deltas go under their own id.
    const fallback = input.fallback ? `:f${input.fallback}` : '';
    const callId = `${input.runId}:m${input.callSeq}${fallback}:a${ctx.info.attempt}`;
    let pending: { index: number; type: string; data: unknown }[] = [];
    let index = 0;
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      await store.appendModelDeltas(input.runId, callId, batch);
    };
    let flushing = Promise.resolve();
    let streamed = 0;
    const onEvent = (e: ModelEvent): void => {
      if (e.type === 'model.text.delta') streamed += Buffer.byteLength(e.delta);
      if (e.type === 'model.tool_call.delta') streamed += Buffer.byteLength(e.argumentsDelta);
      if (streamed > MAX_STORED_DELTA_BYTES) return;
      pending.push({ index: index++, type: e.type, data: e });
      if (pending.length >= DELTA_FLUSH_EVERY) {
        ctx.heartbeat({ deltas: index });
        flushing = flushing.then(flush);
      }
    };
    try {
      const output = await route.provider.stream(
        {
          callId,
          purpose: input.purpose,
          model: route.model,
          messages,
          tools: tools.length ? tools : undefined,
          outputSchema: input.outputSchema ? { ...input.outputSchema } : undefined,
          ...(input.invalidToolCalls ? { invalidToolCalls: input.invalidToolCalls } : {}),
          // A configured window bounds the answer by the reserve the request was planned with.
          ...(route.windowConfigured || route.maxOutputTokens !== undefined
            ? { maxOutputTokens: outputReserve }
            : {}),
        },
        { signal: ctx.cancellationSignal, onEvent },
      );
      await flushing;
      const decision: Omit<ModelDecision, 'replayed'> = {
        text: output.text,
        toolCalls: output.toolCalls.map((c) => ({
          id: c.id,
          name: c.name,
          version: c.version,
          args: c.args,
        })),
        stopReason: output.stopReason,
        // Summaries made for this request are counted with it, once (the group is stored once).
        usage: {
          inputTokens: output.usage.inputTokens + made.usage.inputTokens,
          outputTokens: output.usage.outputTokens + made.usage.outputTokens,
        },
        costUsd: output.costUsd + made.costUsd,
        providerModel: output.providerModel,
        provider: route.provider.name,
        ...toolOutputFindingsOf(pkg, input.runId, input.callSeq),
        ...(output.invalidToolCalls ? { invalidToolCalls: output.invalidToolCalls } : {}),
      };
      assertAnswerBounded(decision);
      const body: MessageGroupBody = { input: input.newMessages, context, output: decision };
      // The last deltas go in the transaction of the answer.
      const last = pending;
      pending = [];
      try {
        await store.appendMessageGroupWithDeltas(input.runId, input.callSeq, [body], callId, last);
      } catch (err) {
        pending = last;
        await flush().catch(() => undefined);
        // Another attempt of this call stored its answer first (an attempt that timed out while
        // still running, then a retry on another worker: their packages differ in build time).
        // The first record stands: that answer is the call's, counted once.
        const first = await firstAnswer(err, store, input.runId, input.callSeq);
        if (first) return { ...first.output, replayed: true };
        throw err;
      }
      return {
        ...decision,
        replayed: false,
        context: { packageId: context.packageId, digest: context.digest },
        attempt: ctx.info.attempt,
      };
    } catch (err) {
      await flushing.catch(() => undefined);
      await flush().catch(() => undefined);
      if (err instanceof ApplicationFailure) throw err;
      throw toApplicationFailure(err);
    }
  };
  // One implementation under both names: `callModelV2` is what runs scheduled by this release call
  // (its batches may name the run header by reference, which an older worker would not read).
  return {
    callModel,
    callModelV2: (input: CompactModelInput<ModelCallActivityInputV2>) =>
      callModel(completeModelInput(input, callingWorkflowId())),
  };
}
