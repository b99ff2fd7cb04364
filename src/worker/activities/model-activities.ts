import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { isHarnessError } from '../../contract/errors.js';
import { buildContext } from '../context/build-context.js';
import { DATA_NOTICE, renderDataBlock } from '../context/render.js';
import type { ContextItem } from '../context/types.js';
import type { ModelEvent } from '../model/events.js';
import { toApplicationFailure } from '../model/to-application-failure.js';
import type { ModelMessage, ModelToolSpec } from '../model/types.js';
import type { ToolRegistry } from '../tools/index.js';
import type { ModelDecision, ModelMessageInput } from '../../core/runner/ports.js';
import type { ModelActivities, ModelCallActivityInput } from '../../core/workflow/activity-interfaces.js';
import { observationText } from '../../core/runner/observations.js';
import type { EvidenceStore } from '../store/index.js';
import type { ModelRouter, ResolvedRoute } from './model-router.js';
import { storeEvents } from './store-events.js';
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
}

const DELTA_FLUSH_EVERY = 16;

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

/** Token budget of one call's new context (the model's window is the provider's concern). */
const CONTEXT_TOKEN_BUDGET = 200_000;

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

/** The context items of one call's new messages: kind and trust come from the runner, never from content. */
export function contextItems(
  runId: string,
  callSeq: number,
  input: readonly ModelMessageInput[],
): ContextItem[] {
  return input.map((m, i) => ({
    itemId: `${runId}:m${callSeq}:${i}`,
    kind: m.role === 'system' ? 'instruction' : m.role === 'tool' ? 'tool_fact' : 'conversation',
    trust: m.trust ?? (m.role === 'system' ? 'system' : 'untrusted'),
    sourceRef:
      m.role === 'tool' ? `tool-call://${m.toolCallId ?? 'unknown'}` : `message://${runId}/${callSeq}/${i}`,
    content: m.content,
  }));
}

/** The provider messages of one call's new messages: untrusted content fenced as data. */
export function toProviderMessages(
  runId: string,
  callSeq: number,
  input: readonly ModelMessageInput[],
): ModelMessage[] {
  const items = contextItems(runId, callSeq, input);
  return input.map((m, i): ModelMessage => {
    const item = items[i]!;
    // Untrusted content is fenced as data (escaped so it cannot close its fence), never an instruction.
    const content = item.trust === 'untrusted' ? `${renderDataBlock(item)}\n${DATA_NOTICE}` : m.content;
    if (m.role === 'tool') return { role: 'tool', toolCallId: m.toolCallId ?? 'unknown', content };
    if (m.role === 'system' && m.trust === 'untrusted') return { role: 'user', content };
    return { role: m.role, content };
  });
}

function groupMessages(runId: string, seq: number, group: MessageGroupBody): ModelMessage[] {
  const out = toProviderMessages(runId, seq, group.input);
  out.push({
    role: 'assistant',
    content: group.output.text,
    toolCalls: group.output.toolCalls.map((c) => ({
      id: c.id,
      name: c.name,
      version: c.version,
      args: (c.args ?? {}) as Record<string, unknown>,
    })),
  });
  return out;
}

/**
 * The transcript before call `callSeq` of `runId` (provider messages of every earlier message group,
 * references resolved), or the stored group of `callSeq` itself when the call was answered already.
 * Reads from the store only the groups after those `transcripts` holds for the run, so a run's calls
 * do not read the whole transcript each time.
 * @throws ApplicationFailure `model.reference_missing` as {@link resolveReferences}; store errors as thrown.
 */
async function loadTranscript(
  store: EvidenceStore,
  transcripts: TranscriptCache,
  runId: string,
  callSeq: number,
): Promise<{ readonly answered?: MessageGroupBody; readonly messages: readonly ModelMessage[] }> {
  const cached = transcripts.get(runId);
  const base = cached && cached.throughSeq < callSeq ? cached : undefined;
  const groups = await store.listMessageGroups(runId, {
    ...(base ? { fromSeq: base.throughSeq + 1 } : {}),
    toSeq: callSeq,
  });
  const same = groups.find((g) => g.seq === callSeq);
  if (same) return { answered: same.messages[0] as MessageGroupBody, messages: [] };
  const messages: ModelMessage[] = base ? [...base.messages] : [];
  for (const g of groups) {
    const body = g.messages[0] as MessageGroupBody;
    const input = await resolveReferences(store, runId, body.input);
    messages.push(...groupMessages(runId, g.seq, { ...body, input }));
  }
  transcripts.set(runId, { throughSeq: callSeq - 1, messages });
  return { messages };
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
  return {
    async callModel(input: ModelCallActivityInput): Promise<ModelDecision> {
      await storeEvents(store, input.events);
      const transcript = await loadTranscript(store, transcripts, input.runId, input.callSeq);
      if (transcript.answered) return { ...transcript.answered.output, replayed: true };
      const newMessages = await resolveReferences(store, input.runId, input.newMessages);
      const messages: ModelMessage[] = [
        ...transcript.messages,
        ...toProviderMessages(input.runId, input.callSeq, newMessages),
      ];
      const pkg = buildContext({
        items: contextItems(input.runId, input.callSeq, newMessages),
        now: new Date(),
        tokenBudget: CONTEXT_TOKEN_BUDGET,
        reserveOutputTokens: 4_096,
        reserveToolTokens: 4_096,
        policyVersion: 'context/v1',
        packageId: `${input.runId}:ctx${input.callSeq}`,
      });
      const blob = await store.putBlob(pkg);
      const context: ContextRef = {
        packageId: pkg.packageId,
        ref: blob.ref,
        digest: blob.digest,
        totalTokens: pkg.totalTokenEstimate,
        omitted: pkg.omittedItemRefs,
      };
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
      const ctx = Context.current();
      const route = resolveRoute(models, input.modelRoute, input.routeDigest);
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
            ...(route.maxOutputTokens !== undefined ? { maxOutputTokens: route.maxOutputTokens } : {}),
          },
          { signal: ctx.cancellationSignal, onEvent },
        );
        await flushing;
        await flush();
        const decision: Omit<ModelDecision, 'replayed'> = {
          text: output.text,
          toolCalls: output.toolCalls.map((c) => ({
            id: c.id,
            name: c.name,
            version: c.version,
            args: c.args,
          })),
          stopReason: output.stopReason,
          usage: output.usage,
          costUsd: output.costUsd,
          providerModel: output.providerModel,
          provider: route.provider.name,
        };
        assertAnswerBounded(decision);
        const body: MessageGroupBody = { input: input.newMessages, context, output: decision };
        await store.appendMessageGroup(input.runId, input.callSeq, [body]);
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
    },
  };
}
